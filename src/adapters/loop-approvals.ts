import type { Awaitable } from '../core/awaitable.js';
import type { ApprovalBroker, ApprovalRequest, ApprovalState, DecideOptions } from '../gate/approval-broker.js';
import type { ApprovalRecord } from '../gate/approval-record.js';

/**
 * The approvals an outside loop needs: a broker that records them
 * (`SqliteApprovalBroker`, `PostgresApprovalBroker`) and can list a run's,
 * so a call that comes back is matched to the approval it was asked under
 * without using it up.
 */
export interface ExternalApprovals extends ApprovalBroker {
  listApprovals(filter: { runId: string }): Awaitable<readonly ApprovalRecord[]>;
}

/** A call as an approval is bound to it: its run, call id, tool and binding hash (`approvalBinding`). */
export interface ApprovalKey {
  readonly runId: string;
  readonly toolCallId: string;
  readonly tool: string;
  readonly argumentsHash: string;
}

/**
 * arbiter's approvals as an outside loop reaches them. The loop's own
 * answer to an approval request (an AI SDK `approval-response`, an OpenAI
 * Agents `state.approve`) decides nothing: only this store does. Three
 * rules on top of the broker's (bound to run, call, arguments hash,
 * definition fingerprint and policy; used once):
 *
 * - `find` reads where a call's approval stands without using it up (the
 *   loop asks whether a call needs approval, possibly more than once).
 * - A call whose id has no approval but whose exact operation (same run,
 *   tool and binding hash) has one that is still open — pending, or
 *   approved and not used — is decided under that approval: the loop closed
 *   the first call with a "waiting" answer, the model made it again, and
 *   it runs once the approver said yes, once.
 * - An approval given by the requester himself (same user as the run's
 *   principal) lets nothing through, whoever recorded it.
 *
 * @example
 * const approvals = new LoopApprovals({ broker: server.approvals, requester: principal.userId });
 * const record = await approvals.find(key);
 */
export class LoopApprovals implements ApprovalBroker {
  readonly #broker: ExternalApprovals;
  readonly #requester: string;

  constructor({ broker, requester }: { broker: ExternalApprovals; requester: string }) {
    this.#broker = broker;
    this.#requester = requester;
  }

  /** The approval the call would be decided under (its own, else an open one of the same operation), unused. */
  async find(key: ApprovalKey): Promise<ApprovalRecord | undefined> {
    const records = await this.#broker.listApprovals({ runId: key.runId });
    const own = records.find((record) => record.toolCallId === key.toolCallId);
    if (own !== undefined) return own;
    return records.findLast(
      (record) =>
        record.tool === key.tool &&
        record.argumentsHash === key.argumentsHash &&
        record.consumedAt === undefined &&
        (record.status === 'pending' || record.status === 'approved'),
    );
  }

  async decide(request: ApprovalRequest, options: DecideOptions): Promise<ApprovalState> {
    const record = await this.find({
      runId: request.runId,
      toolCallId: request.toolCallId,
      tool: request.tool,
      argumentsHash: request.argumentsHash,
    });
    if (record?.status === 'approved' && record.consumedAt === undefined && record.approver === this.#requester) {
      return {
        status: 'denied',
        approvalId: record.approvalId,
        code: 'approval_denied',
        reason: 'approved by the requester himself: another person must approve it',
      };
    }
    const asked = record === undefined ? request : { ...request, toolCallId: record.toolCallId };
    return this.#broker.decide(asked, options);
  }
}
