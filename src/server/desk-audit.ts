import type { Awaitable } from '../core/awaitable.js';
import { type AuditChainReport, auditChainKey } from '../gate/audit-chain.js';
import type { AuditLog } from '../gate/audit-log.js';
import type { AuditRecord } from '../store/audit-rows.js';

/** An audit log the desk can read back: both stores' (`SqliteAuditLog`, `PostgresAuditLog`). */
export interface AuditReader {
  listAudit(filter?: { runId?: string }): Awaitable<readonly AuditRecord[]>;
  verifyChain(): Awaitable<AuditChainReport>;
}

/**
 * Whether `audit` can be read back (an application's own `AuditLog` may only append).
 *
 * @example
 * if (isAuditReader(dependencies.audit)) rows = await dependencies.audit.listAudit({ runId });
 */
export function isAuditReader(audit: AuditLog): audit is AuditLog & AuditReader {
  const candidate = audit as Partial<AuditReader>;
  return typeof candidate.listAudit === 'function' && typeof candidate.verifyChain === 'function';
}

/** What the desk's audit view is asked for; every field narrows. */
export interface AuditFilter {
  readonly tool?: string | undefined;
  /** The outcome, exactly (`ok`, `not_run`, `replayed:ok`), or its start (`replayed`). */
  readonly outcome?: string | undefined;
  /** The caller of the tool, or the approver who decided it. */
  readonly user?: string | undefined;
  /** Milliseconds since the epoch, inclusive. */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
}

/** The chain's word on one tenant's rows: `verified`, or `broken` at the first row where it breaks. */
export interface TenantChainStatus {
  readonly status: 'verified' | 'broken';
  /**
   * The tenant's own rows that were checked (the whole log is verified, but
   * how many rows other tenants have is theirs to know, not his).
   */
  readonly rowsChecked: number;
  readonly breaks: readonly { readonly auditId: number; readonly kind: string; readonly message: string }[];
}

/**
 * The tenant's audit rows that match `filter`, newest first, at most `limit`.
 *
 * @example
 * filterAuditRows({ rows, tenantId: 'shop', filter: { tool: 'apply_refund' }, limit: 200 });
 */
export function filterAuditRows({
  rows,
  tenantId,
  filter,
  limit,
}: {
  rows: readonly AuditRecord[];
  tenantId: string | undefined;
  filter: AuditFilter;
  limit: number;
}): AuditRecord[] {
  const tenant = auditChainKey(tenantId);
  const matches: AuditRecord[] = [];
  for (let index = rows.length - 1; index >= 0 && matches.length < limit; index -= 1) {
    const row = rows[index];
    if (row === undefined || auditChainKey(row.tenantId) !== tenant) continue;
    if (filter.tool !== undefined && row.tool !== filter.tool) continue;
    if (
      filter.outcome !== undefined &&
      row.outcome !== filter.outcome &&
      !row.outcome.startsWith(`${filter.outcome}:`)
    ) {
      continue;
    }
    if (filter.user !== undefined && row.userId !== filter.user && row.approver !== filter.user) continue;
    if (filter.from !== undefined && row.at < filter.from) continue;
    if (filter.to !== undefined && row.at > filter.to) continue;
    matches.push(row);
  }
  return matches;
}

/**
 * One tenant's part of a chain report: another tenant's breaks are not
 * his to see, nor are they his chain, nor is how many rows they have.
 *
 * @example
 * tenantChainStatus({ report: await audit.verifyChain(), tenantId: 'shop' }).status; // 'verified'
 */
export function tenantChainStatus({
  report,
  tenantId,
}: {
  report: AuditChainReport;
  tenantId: string | undefined;
}): TenantChainStatus {
  const tenant = auditChainKey(tenantId);
  const breaks = report.findings
    .filter((finding) => finding.tenant === tenant)
    .map((finding) => ({ auditId: finding.auditId, kind: finding.kind, message: finding.message }));
  return { status: breaks.length === 0 ? 'verified' : 'broken', rowsChecked: report.tenantRows[tenant] ?? 0, breaks };
}
