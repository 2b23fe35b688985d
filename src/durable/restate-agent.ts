import * as restate from '@restatedev/restate-sdk';
import { type ApprovalSignal, approvalSignalTopic } from './run-durable-agent.js';
import { type DurableRunInput, type DurableRunSummary, type EngineAgentOptions, runInEngine } from './run-in-engine.js';

// @restatedev/restate-sdk 1.14+ calls Promise.withResolvers, which Node.js 20 lacks (22 has it).
if (!('withResolvers' in Promise)) {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: <Value>() => {
      let resolve!: (value: Value | PromiseLike<Value>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<Value>((settle, fail) => {
        resolve = settle;
        reject = fail;
      });
      return { promise, resolve, reject };
    },
  });
}

export interface RestateAgentOptions {
  /** Everything a run needs that is not JSON (model, tools, gate, approvals, idempotency, audit, event log), once per worker. */
  readonly agent: EngineAgentOptions;
  /** The virtual object a session is, one run at a time per key (the session id). Default `arbiterSession`. */
  readonly sessionObject?: string;
  /** The virtual object, keyed by run id, through which a decided approval reaches the waiting run. Default `arbiterApprovals`. */
  readonly approvalsObject?: string;
}

/** What a session's run handler takes: the run's JSON input. */
type RunHandler = (context: restate.ObjectContext, input: DurableRunInput) => Promise<DurableRunSummary>;

/**
 * Arbiter's loop as Restate services: a session is a virtual object (one
 * writer per session key: a session runs one run at a time), its `run`
 * handler is the run, each model turn and each validated, gated tool
 * execution a `ctx.run`, the approval an awakeable that arbiter's approval
 * decision resolves, through the `arbiterApprovals` object keyed by run id,
 * once it has checked who may approve and recorded the decision. Start runs
 * with arbiter's run id as the invocation's idempotency key
 * (`restateRunClient`), so a retried start is the same run. Arbiter keeps
 * deciding inside every step: validation, tiers and rules, the approval's
 * binding to the arguments, the idempotency claim (a `ctx.run` Restate runs
 * again after a crash executes its tool once: the claim replays or
 * reconciles the first attempt), the audit, the event stream.
 *
 * @example
 * const { services } = restateAgent({ agent: { model, tools, gate, approvals, idempotency, audit, log, runs } });
 * await restate.serve({ services, port: 9080 });
 */
export function restateAgent({
  agent,
  sessionObject = 'arbiterSession',
  approvalsObject = 'arbiterApprovals',
}: RestateAgentOptions) {
  const approvals = restate.object({
    name: approvalsObject,
    handlers: {
      /** The run waits on this awakeable: resolved at once if the decision came first. */
      park: async (context: restate.ObjectContext, awakeableId: string): Promise<void> => {
        if ((await context.get<boolean>('resumed')) === true) {
          context.clear('resumed');
          context.resolveAwakeable<ApprovalSignal>(awakeableId, { runId: context.key });
          return;
        }
        context.set('awakeable', awakeableId);
      },
      /** None of the run's approvals is pending any more: wake the run, or leave word for it. */
      resume: async (context: restate.ObjectContext): Promise<void> => {
        const awakeableId = await context.get<string>('awakeable');
        if (awakeableId === null) {
          context.set('resumed', true);
          return;
        }
        context.clear('awakeable');
        context.resolveAwakeable<ApprovalSignal>(awakeableId, { runId: context.key });
      },
    },
  });
  const run: RunHandler = (context, input) =>
    runInEngine({
      engine: 'restate',
      input,
      agent,
      primitives: {
        step: (name, action) => context.run(name, action),
        now: () => context.date.now(),
        newId: () => context.rand.uuidv4(),
        waitForSignal: async <Payload>({ topic, timeoutMs }: { topic: string; timeoutMs: number }) => {
          if (topic !== approvalSignalTopic) return undefined;
          const { id, promise } = context.awakeable<Payload>();
          context.objectSendClient(approvals, input.runId).park(id);
          try {
            return await promise.orTimeout(timeoutMs);
          } catch (error) {
            if (error instanceof restate.TimeoutError) return undefined;
            throw error;
          }
        },
      },
    });
  const session = restate.object({ name: sessionObject, handlers: { run } });
  return { services: [session, approvals], session, approvals };
}
