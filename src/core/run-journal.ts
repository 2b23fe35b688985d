import type { ChatMessage } from './chat-message.js';
import type { RunUsage } from './run-usage.js';
import type { ToolOutcome } from './tool-outcome.js';

/** A tool call's answer, recorded as soon as it is known, before the batch's messages are committed. */
export interface RecordedToolResult {
  readonly toolCallId: string;
  readonly tool: string;
  /** The tool message content the model gets. */
  readonly content: string;
  readonly outcome: ToolOutcome;
  /**
   * Running the call again after a crash is harmless: it changes nothing
   * (a `read`) and so does every other call of its batch. A journal may
   * then make the result durable with its next commit instead of at once
   * (a crash in between runs the call again); it still answers
   * `findToolResult` with it.
   */
  readonly rerunnable?: boolean;
}

/** What one step changed: the messages it appended and the counters after it. */
export interface StepCommit {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly appended: readonly ChatMessage[];
  readonly steps: number;
  readonly usage: RunUsage;
  /** Money spent by the run so far (0 without prices). */
  readonly cost?: number;
  /** The seq of the run's last event, so a resumed run continues the numbering. */
  readonly lastSeq?: number;
  /**
   * The messages only answer calls that are `rerunnable`: a journal may
   * write this commit with its next one instead of at once (a crash in
   * between runs those calls again, and nothing that cost money or changed
   * anything is lost).
   */
  readonly rerunnable?: boolean;
  /**
   * The commit holds an answer that calls no tool: no other commit of the
   * run follows it. A journal asked to (`JournalRequest.endRunWithAnswer`)
   * ends the run in the same transaction and says so (`RunJournal.runEnded`).
   */
  readonly endsRun?: boolean;
}

/**
 * Where a run writes down what must survive a crash. The loop calls
 * `commitStep` after every change to the conversation (a model answer, a
 * resolved batch of tool messages), and records each tool call's result the
 * moment it is known, so a resumed run never executes a call twice.
 *
 * @example
 * const journal = createMemoryJournal();
 * await runAgent({ model, tools, messages, journal });
 */
export interface RunJournal {
  findToolResult(
    runId: string,
    toolCallId: string,
  ): Promise<RecordedToolResult | undefined> | RecordedToolResult | undefined;
  recordToolResult(runId: string, result: RecordedToolResult): Promise<void> | void;
  commitStep(commit: StepCommit): Promise<void> | void;
  /**
   * True once a commit that ended the run (`StepCommit.endsRun`) has
   * committed with the run's end: whoever began the run need not end it.
   * Absent or false: it must.
   */
  readonly runEnded?: boolean;
}

/** A journal that keeps tool results in memory and commits nowhere: the default for a run without a store. */
export function createMemoryJournal(): RunJournal {
  // By run, then by call: no key joined from both per lookup.
  const runs = new Map<string, Map<string, RecordedToolResult>>();
  return {
    findToolResult: (runId, toolCallId) => runs.get(runId)?.get(toolCallId),
    recordToolResult: (runId, result) => {
      let results = runs.get(runId);
      if (results === undefined) {
        results = new Map();
        runs.set(runId, results);
      }
      // The first answer stays, as in a durable journal: a call is answered once.
      if (!results.has(result.toolCallId)) results.set(result.toolCallId, result);
    },
    commitStep: () => {},
  };
}
