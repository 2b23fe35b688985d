import { sql } from '../sql/sql-program.js';

/**
 * The SQL of `SqlIdempotencyStore`: the same text in both dialects. A key
 * is the row (tenant, scope user, key); the claimant, the claiming call,
 * the owning process and the time sit beside it.
 */
export const idempotencyStatements = {
  /** Tenant, scope user, key, claimant, tool, run, tool call, owner, time, fingerprint: taken only when absent. */
  insert: sql(
    `INSERT INTO idempotency_claims
       (tenant_id, scope_user_id, key, claimant_user_id, status, tool, run_id, tool_call_id, owner, claimed_at,
        tool_fingerprint)
     VALUES ($1, $2, $3, $4, 'claimed', $5, $6, $7, $8, $9, $10)
     ON CONFLICT (tenant_id, scope_user_id, key) DO NOTHING`,
  ),
  select: sql(
    `SELECT claimant_user_id, status, run_id, tool_call_id, owner, outcome, claimed_at FROM idempotency_claims
     WHERE tenant_id = $1 AND scope_user_id = $2 AND key = $3`,
  ),
  /** The outcome of this process's call, while the key is still its claim. */
  complete: sql(
    `UPDATE idempotency_claims SET status = 'completed', outcome = $1, completed_at = $2
     WHERE tenant_id = $3 AND scope_user_id = $4 AND key = $5 AND owner = $6 AND status = 'claimed'`,
  ),
  release: sql(
    `DELETE FROM idempotency_claims
     WHERE tenant_id = $1 AND scope_user_id = $2 AND key = $3 AND owner = $4 AND status = 'claimed'`,
  ),
  /** $1-$7: `unknownClaimGuard`; the reconciled outcome and the time. */
  completeUnknown: sql(
    `UPDATE idempotency_claims SET status = 'completed', outcome = $8, completed_at = $9
     WHERE tenant_id = $1 AND scope_user_id = $2 AND key = $3 AND claimant_user_id = $4
       AND status = 'claimed' AND run_id = $5 AND tool_call_id = $6 AND claimed_at = $7`,
  ),
  /** $1-$7: `unknownClaimGuard`; the call re-taking it, this process and the new time. */
  retakeUnknown: sql(
    `UPDATE idempotency_claims SET run_id = $8, tool_call_id = $9, tool = $10, owner = $11, claimed_at = $12,
       tool_fingerprint = $13
     WHERE tenant_id = $1 AND scope_user_id = $2 AND key = $3 AND claimant_user_id = $4
       AND status = 'claimed' AND run_id = $5 AND tool_call_id = $6 AND claimed_at = $7`,
  ),
  /** SQLite databases upgraded through migration 13 only: keys claimed before keys were scoped. */
  beforeScoping: sql('SELECT run_id, tool_call_id, claimed_at FROM idempotency_keys_before_scoping WHERE key = $1'),
};
