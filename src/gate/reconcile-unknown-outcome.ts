import type { ReconcileAnswer } from '../tools/tool-types.js';
import type { GatedCall } from './gated-call.js';
import type { IdempotencyClaim, IdempotencyClaimRequest, IdempotencyStore } from './idempotency-store.js';

type UnknownClaim = Extract<IdempotencyClaim, { status: 'outcome_unknown' }>;

/**
 * Asks the call's tool (its `reconcile`) whether an interrupted earlier
 * attempt under this key took effect, and settles the key by the answer:
 * `happened` records the reconciled result as the key's outcome (the claim
 * reads `completed`); `not_happened` re-takes the key for this call
 * (`claimed`: it runs once). Both go through the store's guarded write, so
 * of two racing reconcilers one wins and the other gets the key's new state
 * (the winner's result, or its claim in flight). Returns `unknown` as it
 * came when the tool has no `reconcile`, the store cannot settle keys, the
 * claim's owner may still be running the call (`ownerMayBeRunning`), the
 * tool answers `unknown`, or `reconcile` throws: a person must check.
 *
 * @example
 * const settled = await reconcileUnknownOutcome({ call, store, request, unknown: claim, key });
 * if (settled.status === 'claimed') await execute();
 */
export async function reconcileUnknownOutcome({
  call,
  store,
  request,
  unknown,
}: {
  /** The call presenting the key: its tool, arguments and context. */
  call: GatedCall;
  store: IdempotencyStore;
  /** The claim request that was answered `outcome_unknown`. */
  request: IdempotencyClaimRequest;
  unknown: UnknownClaim;
}): Promise<IdempotencyClaim> {
  const reconcile = call.tool.definition.reconcile;
  // A claim whose owner may still be executing it: the outside system cannot tell yet, and a re-take would run it twice.
  if (reconcile === undefined || store.resolveUnknown === undefined || unknown.ownerMayBeRunning === true)
    return unknown;
  let answer: ReconcileAnswer;
  try {
    answer = await reconcile(call.args, request.key, call.context);
  } catch {
    return unknown;
  }
  if (answer?.status === 'happened') {
    return store.resolveUnknown({
      ...request,
      unknown,
      resolution: { kind: 'completed', outcome: { ok: true, data: answer.result } },
    });
  }
  if (answer?.status === 'not_happened')
    return store.resolveUnknown({ ...request, unknown, resolution: { kind: 'retake' } });
  return unknown;
}
