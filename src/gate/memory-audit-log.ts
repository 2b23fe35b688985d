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
  readonly #entries: AuditEntry[] = [];
  readonly #forwardTo: AuditLog | undefined;

  constructor({ forwardTo }: { forwardTo?: AuditLog | undefined } = {}) {
    this.#forwardTo = forwardTo;
  }

  append(entry: AuditEntry): Promise<void> | void {
    this.#entries.push(entry);
    return this.#forwardTo?.append(entry);
  }

  flush(): Promise<void> | void {
    return this.#forwardTo?.flush?.();
  }

  findCalls(filter: CallHistoryFilter): readonly PastCall[] {
    const decisions = filter.decisions ?? executedDecisions;
    return this.#entries
      .filter(
        (entry) =>
          entry.tool === filter.tool &&
          entry.outcome === 'ok' &&
          (decisions as readonly string[]).includes(entry.decision) &&
          (filter.runId === undefined || entry.runId === filter.runId) &&
          (filter.sessionId === undefined || entry.sessionId === filter.sessionId) &&
          (filter.tenantId === undefined || (entry.tenantId ?? null) === filter.tenantId) &&
          (filter.userId === undefined || (entry.userId ?? null) === filter.userId) &&
          (filter.since === undefined || entry.at >= filter.since),
      )
      .map((entry) => ({
        at: entry.at,
        runId: entry.runId,
        sessionId: entry.sessionId,
        toolCallId: entry.toolCallId,
        tool: entry.tool,
        arguments: entry.arguments,
        decision: entry.decision as ExecutedDecision,
        rule: entry.rule,
      }));
  }
}
