import type { Model } from '../models/model.js';

/** The default number of tools the ranking contributes per step: the seeds' "5 to 8 at a time". */
export const DEFAULT_ROUTING_TOP_K = 6;
/** How long the router model may take before the lexical ranking is used instead. */
export const DEFAULT_ROUTER_TIMEOUT_MS = 3_000;

/**
 * Tool routing for a large mounted set (`runAgent`'s and `runSession`'s
 * `routing` option): before each model call, only the tools the request
 * needs are sent. The rest stay callable: a call to one of them is answered
 * "not sent this step" and the tool is sent from the next step on.
 *
 * @example
 * await runAgent({ model, tools: registry, messages, routing: { topK: 6, always: ['handoff_to_human'] } });
 */
export interface RoutingOptions {
  /** How many tools the ranking adds to those kept (in use, `always`). Default 6. */
  readonly topK?: number;
  /** Tools sent at every step when mounted (e.g. a hand-off tool), besides the ranked ones. */
  readonly always?: readonly string[];
  /** What the run is for, searched besides the latest user message (counts half as much). */
  readonly task?: string;
  /**
   * When the request shares no term with any tool (and the router model, if
   * any, names none) and no tool is in use: `all` sends every mounted tool
   * (the default: a model without the tool it needs makes things up),
   * `kept` only the `always` ones. At a later step of the same turn, with
   * tools in use, those are sent (with the `always` ones) instead.
   */
  readonly onNoMatch?: 'all' | 'kept';
  /**
   * A small, cheap model that picks the tools by name ("小模型做路由"). Its
   * answer is checked (a JSON array of mounted tool names); on an error, a
   * timeout or an invalid answer the lexical ranking is used. Its tokens
   * count in the run's usage.
   */
  readonly model?: Model;
  /** The router model's time limit in milliseconds. Default 3000. */
  readonly modelTimeoutMs?: number;
}
