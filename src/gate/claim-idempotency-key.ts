import type { ToolErrorPayload } from '../core/tool-outcome.js';
import { auditToolCall } from './audit-tool-call.js';
import type { GatedCall, GateRuntime } from './gated-call.js';
import type { IdempotencyClaim, IdempotencyClaimRequest, IdempotencyStore } from './idempotency-store.js';
import { reconcileUnknownOutcome } from './reconcile-unknown-outcome.js';

/** What claiming a call's idempotency key allows. `undefined`: the call has no key (or the run no store). */
export type KeyClaim =
  | undefined
  /** First with this key: execute, then settle the claim (`complete`, `release` or `abandon`). */
  | Extract<IdempotencyClaim, { status: 'claimed' }>
  /** Executed before for this claimant: audited as a replay; hand back `outcome`, do not execute. */
  | Extract<IdempotencyClaim, { status: 'completed' }>
  /** Another user's tenant-wide key, or an earlier attempt with no known outcome: audited, never executed. */
  | { readonly status: 'refused'; readonly error: ToolErrorPayload };

/**
 * Claims the call's idempotency key, if its tool has one and the run has a
 * store, scoped by the principal's tenant and user (or the tenant, for a
 * tool whose key is tenant-wide). A key claimed before is never executed
 * again: its first outcome is replayed, or the call is refused when that
 * outcome is unknown or belongs to another user. An unknown outcome is
 * first reconciled when the tool can ask the outside system
 * (`reconcileUnknownOutcome`): a call that took effect replays the
 * reconciled result (audited `reconciled:ok`), one that did not runs once.
 * Replays, reconciliations and refusals are audited here. A call without a key is answered synchronously (`undefined`),
 * so it waits for nothing and starts in the same turn of the event loop.
 *
 * @example
 * const claiming = claimIdempotencyKey(runtime, call);
 * const key = claiming instanceof Promise ? await claiming : claiming;
 * if (key?.status === 'completed') return replay(key.outcome);
 */
export function claimIdempotencyKey(runtime: GateRuntime, call: GatedCall): KeyClaim | Promise<KeyClaim> {
  const store = runtime.idempotency;
  if (store === undefined) return undefined;
  const key = call.tool.definition.idempotencyKey?.(call.args, call.context);
  if (key === undefined) return undefined;
  return claimKey(runtime, call, store, key);
}

async function claimKey(
  runtime: GateRuntime,
  call: GatedCall,
  store: IdempotencyStore,
  key: string,
): Promise<KeyClaim> {
  const { definition } = call.tool;
  const { principal, gateTexts: texts } = runtime;
  const request: IdempotencyClaimRequest = {
    key,
    claimant: { tenantId: principal?.tenantId ?? '', userId: principal?.userId ?? '' },
    scope: definition.idempotencyScope ?? 'principal',
    runId: runtime.runId,
    toolCallId: call.toolCallId,
    tool: call.toolName,
    ...(definition.fingerprint === undefined ? {} : { toolFingerprint: definition.fingerprint }),
  };
  let claim = await store.claim(request);
  // Interrupted before: the outside system may know whether it took effect (once; a lost race stays as it reads).
  const reconciled =
    claim.status === 'outcome_unknown' &&
    claim.ownerMayBeRunning !== true &&
    call.tool.definition.reconcile !== undefined;
  if (claim.status === 'outcome_unknown')
    claim = await reconcileUnknownOutcome({ call, store, request, unknown: claim });
  if (claim.status === 'claimed') return claim;
  if (claim.status === 'completed') {
    if (reconciled) {
      await auditToolCall(
        runtime,
        call,
        `reconciled:${claim.outcome.ok ? 'ok' : claim.outcome.error.code}`,
        claim.original,
      );
      return claim;
    }
    await auditToolCall(
      runtime,
      call,
      `replayed:${claim.outcome.ok ? 'ok' : claim.outcome.error.code}`,
      claim.original,
    );
    return claim;
  }
  if (claim.status === 'claimed_by_another_user') {
    await auditToolCall(runtime, call, 'claimed_by_another_user', claim.original);
    const message = texts.refused({
      tool: call.toolName,
      code: 'claimed_by_another_user',
      message: texts.claimedByAnotherUser(),
    });
    return { status: 'refused', error: { code: 'claimed_by_another_user', retryable: false, message } };
  }
  await auditToolCall(runtime, call, 'outcome_unknown', claim.original);
  const message = texts.outcomeUnknown({ tool: call.toolName });
  return { status: 'refused', error: { code: 'outcome_unknown', retryable: false, message } };
}
