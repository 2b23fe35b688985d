import type { GateRule } from '../gate/tier-gate.js';
import type { ToolDefinition } from '../tools/tool-types.js';

/**
 * An application's tools with fresh data, made for one case so that cases
 * never see each other's side effects.
 */
export interface EvalToolkit {
  readonly tools: readonly ToolDefinition[];
  /** The application's gate configuration (e.g. a hard cap), given to `createTierGate` for every case. */
  readonly gateRules?: readonly GateRule[];
  /** Facts about the data after the case ran (e.g. `{ refunds: 2 }`), for `expect.state`. */
  state?(): Readonly<Record<string, unknown>>;
  close?(): void;
}

/**
 * Makes a toolkit for one case from the case's `toolkitOptions`. A suite
 * names its toolkit (`"toolkit": "shop"`); the command that runs the suite
 * supplies the factories, so domain code stays out of the runtime.
 *
 * @example
 * const toolkits = { shop: () => ({ tools: createShopTools({ database: openShopDatabase({ path: ':memory:' }) }) }) };
 */
export type EvalToolkitFactory = (options: Readonly<Record<string, unknown>>) => EvalToolkit;
