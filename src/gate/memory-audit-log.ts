import type { CallHistoryFilter, CallHistorySource, ExecutedDecision, PastCall } from '../core/call-history.js';
import { type AuditEntry, type AuditLog, executedDecisions } from './audit-log.js';

/**
 * An audit log in memory that answers history queries, for a run without a
 * readable audit log (no store, or an `AuditLog` that only appends): what
 * this process appended through it is the history, and every entry is also
 * passed on to `forwardTo`. `runAgent` puts one in front of such an audit
 * log, so a cumulative rule still sees the calls of its own run.
 *
 * @example
 * const audit = new MemoryAuditLog({ forwardTo: remoteAudit });
 * await runAgent({ model, tools, messages, audit });
 */
export class MemoryAuditLog implements AuditLog, CallHistorySource {
  /**
   * What a history query can find: the calls that executed (outcome `ok`,
   * an executed decision), each kept as the fields a query reads. The rest
   * of an entry (its hash, duration, side effect, …) is passed on and not
   * kept: a long-lived log holds about half as much per call.
   */
  readonly #calls: RememberedCall[] = [];
  readonly #forwardTo: AuditLog | undefined;

  constructor({ forwardTo }: { forwardTo?: AuditLog | undefined } = {}) {
    this.#forwardTo = forwardTo;
  }

  append(entry: AuditEntry): Promise<void> | void {
    if (entry.outcome === 'ok' && (executedDecisions as readonly string[]).includes(entry.decision)) {
      this.#calls.push({
        at: entry.at,
        runId: entry.runId,
        sessionId: entry.sessionId,
        toolCallId: entry.toolCallId,
        tool: entry.tool,
        arguments: entry.arguments,
        decision: entry.decision as ExecutedDecision,
        rule: entry.rule,
        tenantId: entry.tenantId ?? null,
        userId: entry.userId ?? null,
      });
    }
    return this.#forwardTo?.append(entry);
  }

  flush(): Promise<void> | void {
    return this.#forwardTo?.flush?.();
  }

  findCalls(filter: CallHistoryFilter): readonly PastCall[] {
    const decisions = filter.decisions ?? executedDecisions;
    return this.#calls
      .filter(
        (call) =>
          call.tool === filter.tool &&
          decisions.includes(call.decision) &&
          (filter.runId === undefined || call.runId === filter.runId) &&
          (filter.sessionId === undefined || call.sessionId === filter.sessionId) &&
          (filter.tenantId === undefined || call.tenantId === filter.tenantId) &&
          (filter.userId === undefined || call.userId === filter.userId) &&
          (filter.since === undefined || call.at >= filter.since),
      )
      .map((call) => ({
        at: call.at,
        runId: call.runId,
        sessionId: call.sessionId,
        toolCallId: call.toolCallId,
        tool: call.tool,
        arguments: call.arguments,
        decision: call.decision,
        rule: call.rule,
      }));
  }
}

/** A call that executed, as a history query reads it. */
interface RememberedCall extends PastCall {
  readonly tenantId: string | null;
  readonly userId: string | null;
}
