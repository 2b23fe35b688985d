import type { GatedCall } from '../gate/gated-call.js';

/** Calls whose tool is working, waiting for the check phase of this turn of the event loop. */
let waiting: GatedCall[] = [];
let scheduled = false;

function prepareWaiting(): void {
  const calls = waiting;
  waiting = [];
  scheduled = false;
  for (const call of calls) {
    // Read to be kept: the audit entry takes it when the tool has answered.
    call.argumentsHash;
  }
}

/**
 * Takes, while a tool works, what only the audit needs of its call (the
 * arguments' hash, about 6 µs) instead of after the answer. An MCP tool's
 * request is out by then: the process would otherwise sleep until the
 * server answers, and the answer finds the work done. One check-phase
 * callback (`setImmediate`) serves every call that started in a turn of
 * the event loop; it runs after the microtasks that send their requests.
 * A call answered sooner takes the hash itself; the callback then finds it
 * taken.
 *
 * @example
 * const answer = tool.definition.execute(call.args, call.context);
 * prepareWhileWaiting(call);
 */
export function prepareWhileWaiting(call: GatedCall): void {
  waiting.push(call);
  if (scheduled) return;
  scheduled = true;
  setImmediate(prepareWaiting);
}
