import type { DurableSteps } from '../core/durable-steps.js';
import { createMemoryJournal } from '../core/run-journal.js';
import { type RunAgentOptions, type RunResult, runAgent } from '../loop/run-agent.js';

/** The signal a durable run waits on while a person decides: sent once none of its approvals is pending. */
export const approvalSignalTopic = 'arbiter.approval';

/** What the approval signal carries: only that the run may go on; the decisions themselves stay in arbiter's store. */
export interface ApprovalSignal {
  readonly runId: string;
}

export interface RunDurableAgentOptions extends RunAgentOptions {
  readonly steps: DurableSteps;
  /**
   * How long the run waits in the engine for its approvals to be decided,
   * in total; past it the run ends `awaiting_approval`. Default seven days.
   */
  readonly approvalWaitMs?: number;
}

const sevenDaysMs = 7 * 24 * 60 * 60 * 1000;

/**
 * Runs arbiter's loop inside a durable engine's workflow: `runAgent` with
 * the engine's `steps`, and where it stops `awaiting_approval`, a wait for
 * the approval signal (recorded by the engine: a worker restart or a deploy
 * keeps waiting), then the same run resumed with the decision arbiter's
 * store holds. The approval itself is checked and recorded by arbiter (who
 * may approve, four eyes, the arguments hash) before the signal is sent;
 * the signal only says "go on". The run id is made through the engine when
 * none is given; one journal serves the whole run, so a call answered
 * before the wait is not run again after it.
 *
 * @example
 * const result = await runDurableAgent({ model, tools, messages, runId: DBOS.workflowID, steps });
 */
export async function runDurableAgent(options: RunDurableAgentOptions): Promise<RunResult> {
  const { steps, approvalWaitMs = sevenDaysMs } = options;
  const runId = options.runId ?? (await steps.newId());
  const journal = options.journal ?? createMemoryJournal();
  let result = await runAgent({ ...options, runId, journal });
  const deadline = (await steps.now()) + approvalWaitMs;
  while (result.stopReason === 'awaiting_approval') {
    const left = deadline - (await steps.now());
    if (left <= 0) return result;
    const signal = await steps.waitForSignal<ApprovalSignal>({ topic: approvalSignalTopic, timeoutMs: left });
    if (signal === undefined) return result;
    result = await runAgent({
      ...options,
      runId,
      journal,
      messages: result.messages,
      resume: { steps: result.steps, usage: result.usage, lastSeq: result.lastSeq, cost: result.cost ?? 0 },
    });
  }
  return result;
}
