/**
 * The engines bench's Temporal workflows: arbiter's run (`arbiterRun`) and
 * the bare baseline, a workflow that calls one trivial activity per step.
 * Bundled by the bench's worker into Temporal's sandbox.
 *
 * @module
 */
import { proxyActivities } from '@temporalio/workflow';

export { arbiterRun, arbiterSession } from '../src/durable/temporal-workflow.js';

/** The bare baseline's activity: returns a small result, as a bare DBOS step does. */
export interface BareActivities {
  bareStep(index: number): Promise<{ index: number; ok: boolean }>;
}

/** `count` activities one after the other: Temporal's own cost per step. */
export async function bareSteps(count: number): Promise<number> {
  const { bareStep } = proxyActivities<BareActivities>({ startToCloseTimeout: 60_000 });
  for (let index = 0; index < count; index += 1) await bareStep(index);
  return count;
}
