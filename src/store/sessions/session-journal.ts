import type { RecordedToolResult, RunJournal, StepCommit } from '../../core/run-journal.js';
import { type ToolResultRow, toolResultValues, toRecordedToolResult } from '../session-rows.js';
// Not `then` from sql-port.js: a module that exports `then` is thenable, and a dynamic import of it (vitest's
// module runner awaits each module's namespace) calls that function as if the module were a promise.
import type { SqlMode, SqlPort } from '../sql/sql-port.js';
import { run, type SqlProgram } from '../sql/sql-program.js';
import { type CommitStepRequest, type CommittedStep, commitAnswerAndEndRun, commitStep } from './session-programs.js';
import { sessionStatements as statements } from './session-statements.js';
import type { DeferredSessionWrite, SessionTransactions, SessionWrite } from './session-transactions.js';

/** What a queued step commit asks of the journal that queued it. */
interface QueueingJournal {
  /** A transaction took `entry`: the request that writes it where that transaction finds the run's messages. */
  take(entry: QueuedCommit): CommitStepRequest;
  /** `take`'s commit was written (not yet committed): where the next commit lands. */
  wrote(committed: CommittedStep): void;
  /** The transaction that took `entry` ended. */
  settled(entry: QueuedCommit, committed: boolean): void;
  /** `entry`'s write threw, and was dropped. */
  fail(error: unknown): void;
}

/**
 * A rerunnable step commit in the connection's queue. While `queued` in the
 * journal points at it, no transaction has taken it, and the next commit may
 * absorb it: its queued write then writes nothing. One object per commit,
 * its program `commitStep`'s own (no closure or generator function per commit).
 */
class QueuedCommit implements DeferredSessionWrite<CommittedStep> {
  readonly commit: StepCommit;
  absorbed = false;
  readonly #journal: QueueingJournal;

  constructor(journal: QueueingJournal, commit: StepCommit) {
    this.#journal = journal;
    this.commit = commit;
  }

  work(): SqlProgram<CommittedStep> | undefined {
    return this.absorbed ? undefined : commitStep(this.#journal.take(this));
  }

  wrote(committed: CommittedStep): void {
    this.#journal.wrote(committed);
  }

  fail(error: unknown): void {
    this.#journal.fail(error);
  }

  settled(committed: boolean): void {
    if (!this.absorbed) this.#journal.settled(this, committed);
  }
}

/**
 * The run journal of `SqlSessionStore`: writes a run's steps and tool
 * results into session `sessionId`.
 *
 * - `findToolResult` reads the run's stored results once, with one query,
 *   and answers from them after (synchronously on SQLite): the run is this
 *   process's alone while it is active in the session, so nothing else
 *   records results for it meanwhile. A run just begun (`newRunId`) has
 *   none stored: it is answered from what this journal records, unread.
 * - A rerunnable result (`RecordedToolResult.rerunnable`) is never stored:
 *   the journal answers with it, and the commit of its batch holds it.
 * - A rerunnable step commit waits for the connection's next transaction
 *   where the dialect has such a queue (`SessionTransactions.deferred`), and
 *   a commit that follows while it still waits writes both as one; a held
 *   commit that fails makes the run's next journal call throw.
 * - Every commit lands where the previous one left the messages
 *   (`expectedMessageCount` for the first, when given), or is refused.
 *
 * @example
 * const journal = sessionJournal({ port, transactions, now: Date.now, sessionId: 's1' });
 * await journal.commitStep({ runId, sessionId: 's1', appended, steps: 1, usage });
 */
export function sessionJournal<Mode extends SqlMode>({
  port,
  transactions,
  now,
  sessionId,
  expectedMessageCount,
  newRunId,
  endRunWithAnswer = false,
}: {
  port: SqlPort<Mode>;
  transactions: SessionTransactions;
  now: () => number;
  sessionId: string;
  expectedMessageCount: number | undefined;
  /** A run just begun, not resumed: it has no stored results, so they are not read (`JournalRequest.newRunId`). */
  newRunId?: string | undefined;
  /** End the run with the commit of its answer (`JournalRequest.endRunWithAnswer`). */
  endRunWithAnswer?: boolean | undefined;
}): RunJournal {
  /** Rerunnable results: this journal answers with them; they are not stored. */
  const held = new Map<string, RecordedToolResult>();
  /** The stored results of the run this journal answers for, by tool call id, once read (none yet for a new run). */
  let stored: { readonly runId: string; readonly results: Map<string, RecordedToolResult> } | undefined =
    newRunId === undefined ? undefined : { runId: newRunId, results: new Map() };
  /**
   * Results this journal stored while the run's were not read yet (a read
   * may be on its way, and miss them): added to what that read finds, the
   * stored answer first, as in the table.
   */
  const recorded: { readonly runId: string; readonly result: RecordedToolResult }[] = [];
  const keep = (results: Map<string, RecordedToolResult>, result: RecordedToolResult) => {
    if (!results.has(result.toolCallId)) results.set(result.toolCallId, result);
  };
  const cache = (runId: string, found: readonly ToolResultRow[]) => {
    if (stored?.runId === runId) return stored.results;
    const results = new Map<string, RecordedToolResult>();
    for (const row of found) results.set(row.tool_call_id, toRecordedToolResult(row));
    for (const entry of recorded.splice(0)) if (entry.runId === runId) keep(results, entry.result);
    stored = { runId, results };
    return results;
  };
  /** The run's stored results: at once on SQLite, so the loop goes on without a promise; after the read on PostgreSQL. */
  const readResult = (runId: string, toolCallId: string) => {
    const found: ToolResultRow[] | Promise<ToolResultRow[]> = port.rows<ToolResultRow>(statements.toolResults, [runId]);
    if (found instanceof Promise) return found.then((read) => cache(runId, read).get(toolCallId));
    return cache(runId, found).get(toolCallId);
  };

  /** PostgreSQL commits a step in one statement, a transaction by itself. */
  const oneStatement = port.dialect === 'postgres';
  // Where the next commit must land: as committed, and inside the transaction running now.
  let expected = expectedMessageCount;
  let staged: number | undefined;
  /** Whether the session has a TTL, once a commit has told (it is set when a session is created or forked). */
  let hasTtl: boolean | undefined;
  /** The rerunnable commit queued for the connection's next transaction and not yet taken by one. */
  let queued: QueuedCommit | undefined;
  /** A held write that failed: the run's next journal call throws it. */
  let failure: unknown;
  /** A commit ended the run with its answer (`endRunWithAnswer`), and committed. */
  let runEnded = false;
  const throwFailure = () => {
    if (failure === undefined) return;
    const error = failure;
    failure = undefined;
    throw error;
  };
  const remember = (error: unknown) => {
    failure ??= error;
  };

  /** Where the next commit lands once `committed` is written; a held write that failed meanwhile is thrown then. */
  const landed = (committed: CommittedStep) => {
    hasTtl = committed.hasTtl;
    expected = committed.messageCount;
    throwFailure();
  };
  const landedEnding = (committed: CommittedStep) => {
    runEnded = true;
    landed(committed);
  };
  /**
   * Commits `commit` in a transaction of its own, now: without a promise
   * where the dialect writes at once (`SessionTransactions.writeAtOnce`),
   * so the loop has nothing to await; a failure as a rejected promise.
   */
  const writeNow = (commit: StepCommit): Promise<void> | undefined => {
    const ending = endRunWithAnswer && commit.endsRun === true;
    // `commitStep` as the write's own program, without a generator around it per step (issue 48).
    const write: SessionWrite<CommittedStep> = {
      operation: 'commitStep',
      ofRun: true,
      // The answer and the run's end are two statements: one transaction.
      oneStatement: oneStatement && !ending,
      work: ending
        ? () => commitAnswerAndEndRun({ sessionId, commit, expected, hasTtl, now: now(), oneStatement })
        : () => commitStep({ sessionId, commit, expected, hasTtl, now: now(), oneStatement }),
    };
    const land = ending ? landedEnding : landed;
    if (transactions.writeAtOnce === undefined) return transactions.write(write).then(land);
    try {
      const answer = transactions.writeAtOnce(write);
      if (answer instanceof Promise) return answer.then(land);
      land(answer);
      return undefined;
    } catch (error) {
      return Promise.reject(error);
    }
  };

  /** What this journal's queued commits ask of it: made once per journal, not per commit. */
  const queueing: QueueingJournal = {
    take: (entry) => {
      if (queued === entry) queued = undefined;
      return { sessionId, commit: entry.commit, expected: staged ?? expected, hasTtl, now: now(), oneStatement };
    },
    wrote: (committed) => {
      hasTtl = committed.hasTtl;
      staged = committed.messageCount;
    },
    settled: (entry, committed) => {
      // Rolled back and queued again: it may still be merged into the next commit.
      if (!committed) queued ??= entry;
      if (committed && staged !== undefined) expected = staged;
      staged = undefined;
    },
    fail: remember,
  };

  return {
    get runEnded() {
      return runEnded;
    },
    findToolResult: (runId, toolCallId) => {
      const answer = held.get(`${runId}\u0000${toolCallId}`);
      if (answer !== undefined) return answer;
      if (stored?.runId === runId) return stored.results.get(toolCallId);
      return readResult(runId, toolCallId);
    },
    recordToolResult: async (runId, result) => {
      throwFailure();
      if (result.rerunnable === true) {
        // Never written: the batch's commit holds its answer, and a crash before it runs the call again.
        const key = `${runId}\u0000${result.toolCallId}`;
        if (!held.has(key)) held.set(key, result);
        return;
      }
      const values = toolResultValues({ runId, sessionId, result, now: now() });
      await transactions.write({
        operation: 'recordToolResult',
        ofRun: true,
        oneStatement: true,
        work: () => run(statements.recordToolResult, values),
      });
      // The first answer stays, as in the table.
      if (stored?.runId === runId) keep(stored.results, result);
      else recorded.push({ runId, result });
    },
    // Not an async function: a commit that waits for the next transaction answers at once, without a promise.
    commitStep: (commit) => {
      // A held write that failed rejects this call, as an async function's throw would.
      if (failure !== undefined) {
        const error = failure;
        failure = undefined;
        return Promise.reject(error);
      }
      // A commit still queued would be written first in the same transaction: write both as one.
      let merged = commit;
      if (queued !== undefined) {
        queued.absorbed = true;
        merged = mergeStepCommits(queued.commit, commit);
        queued = undefined;
      }
      const deferred = transactions.deferred;
      if (merged.rerunnable === true && deferred !== undefined) {
        queued = new QueuedCommit(queueing, merged);
        deferred.add(queued);
        return;
      }
      return writeNow(merged);
    },
  };
}

/**
 * Two consecutive step commits of one run as one: the messages of both, in
 * order, and the later one's counters (they are the run's totals so far).
 * One UPDATE of the session row instead of two in the transaction that
 * writes them, which it would have done anyway.
 */
function mergeStepCommits(earlier: StepCommit, later: StepCommit): StepCommit {
  return { ...later, appended: [...earlier.appended, ...later.appended] };
}
