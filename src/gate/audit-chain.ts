import { createHmac } from 'node:crypto';
import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/sha256.js';

/**
 * The audit log as a hash chain, one chain per tenant: every row stores the
 * hash of the previous row of its tenant (`previous_hash`, null for the
 * first) and its own hash (`chain_hash`) over that previous hash and the
 * canonical JSON of everything the row records (`auditWrittenColumns`, in
 * order: proposal, validation, decision and rule, approver, idempotency
 * replay, outcome). A row changed, deleted or slipped in by SQL breaks the
 * chain at that row, and `verifyAuditChain` names it. A row without hashes
 * is accepted only when it is older than the chain (`AuditChainOrigin`,
 * recorded by the migration that started it); any other is named as
 * inserted. Deleting the newest
 * rows of a chain cannot be seen from the chain alone: compare the heads
 * `verifyAuditChain` returns with ones recorded elsewhere.
 */

/**
 * The chain a row belongs to: its tenant, `''` for calls without a principal.
 *
 * @example
 * auditChainKey(undefined); // ''
 */
export function auditChainKey(tenantId: string | null | undefined): string {
  return tenantId ?? '';
}

/**
 * The hash of one audit row: sha256 over the previous row's hash of the same
 * chain (empty for the first) and the canonical JSON of the row's values.
 *
 * @example
 * const hash = auditRowHash({ previousHash: null, values: toAuditRowValues(entry) });
 */
export function auditRowHash({
  previousHash,
  values,
}: {
  previousHash: string | null;
  /** The row's values in the order of `auditWrittenColumns`. */
  values: readonly (string | number | null)[];
}): string {
  return sha256Hex(`${previousHash ?? ''}\n${canonicalJson(hashedValues(values))}`);
}

/**
 * How many values every chained row hashes whatever they hold: the
 * columns the audit had when the chain began. A column added since (the
 * tool's definition fingerprint) comes after them and counts only when
 * set, so rows written before it existed still verify, and a value
 * written into it later breaks the row's hash.
 */
export const auditChainBaseValues = 18;

function hashedValues(values: readonly (string | number | null)[]): readonly (string | number | null)[] {
  let end = values.length;
  while (end > auditChainBaseValues && values[end - 1] === null) end -= 1;
  return end === values.length ? values : values.slice(0, end);
}

/**
 * Appends `previous_hash` and `chain_hash` to each row (values in the order
 * of `auditWrittenColumns`), oldest first, reading and advancing the heads
 * of the chains in `heads` (tenant → hash of its newest row). `headOf` is
 * asked for a chain `heads` does not know yet.
 *
 * @example
 * const linked = linkAuditRows({ rows, tenantColumn, heads, headOf: (tenant) => readHead(tenant) });
 */
export function linkAuditRows({
  rows,
  tenantColumn,
  heads,
  headOf,
}: {
  rows: readonly (string | number | null)[][];
  /** The index of `tenant_id` in a row's values. */
  tenantColumn: number;
  heads: Map<string, string | null>;
  headOf: (tenant: string) => string | null;
}): (string | number | null)[][] {
  return rows.map((values) => {
    const tenant = auditChainKey(values[tenantColumn] as string | null);
    const previousHash = heads.has(tenant) ? (heads.get(tenant) ?? null) : headOf(tenant);
    const chainHash = auditRowHash({ previousHash, values });
    heads.set(tenant, chainHash);
    return [...values, previousHash, chainHash];
  });
}

/** A stored audit row as the chain sees it. */
export interface AuditChainRow {
  readonly auditId: number;
  /** The row's values in the order of `auditWrittenColumns`. */
  readonly values: readonly (string | number | null)[];
  readonly previousHash: string | null;
  readonly chainHash: string | null;
}

/**
 * When the chain began, as the store recorded it (`audit_chain_origin`, written
 * by the migration that started it and never changed): a row without hashes is
 * older than the chain only at or below `lastRowId`, older than `startedAt`,
 * and before the log's first chained row; and the rows at or below
 * `lastRowId` may only have become fewer (a purge) since.
 */
export interface AuditChainOrigin {
  /** The newest `audit_id` when the chain began (0 for a log created with it). */
  readonly lastRowId: number;
  /** How many rows the log had then. */
  readonly rowsThen: number;
  /** The database's clock then, in milliseconds since the epoch. */
  readonly startedAt: number;
}

/** What `verifyAuditChain` found wrong, naming the first row where it shows. */
export interface AuditChainFinding {
  readonly auditId: number;
  readonly tenant: string;
  /**
   * `changed`: the row's content is not what was hashed; `inserted`: the row
   * was not written by the log (also a row without hashes written after the
   * chain began); `deleted`: rows before it are missing; `checkpoint`: a
   * purge checkpoint whose signature does not hold; `origin`: the record of
   * when the chain began is missing (row 0).
   */
  readonly kind: 'changed' | 'inserted' | 'deleted' | 'checkpoint' | 'origin';
  /** One line for a person: which row, what. */
  readonly message: string;
}

/** The outcome of `verifyAuditChain`. */
export interface AuditChainReport {
  readonly ok: boolean;
  /** Rows read. */
  readonly rows: number;
  /** Rows written before the chain existed (no hash, older than its origin), not checked. */
  readonly unchained: number;
  readonly findings: readonly AuditChainFinding[];
  /** The newest hash of every chain: record it elsewhere to detect rows deleted from the end. */
  readonly heads: ReadonlyMap<string, string>;
  /** Purge checkpoints whose signature could not be checked (unsigned, or no key configured). */
  readonly unsignedCheckpoints: number;
}

/** A purge's record of where the remaining chains start, as stored in the purge row's arguments. */
export interface AuditCheckpoint {
  /** Tenant → the hash of the newest row the purge deleted from its chain. */
  readonly chain_starts: Readonly<Record<string, string>>;
  /** HMAC-SHA256 (hex) of the canonical JSON of `chain_starts` with `ARBITER_AUDIT_KEY`; null when no key was configured (then only the purge row's own hash protects it). */
  readonly signature: string | null;
}

/**
 * The checkpoint a purge records: where each chain it cut now starts,
 * signed with `key` when one is configured.
 *
 * @example
 * const checkpoint = auditCheckpoint({ chainStarts: { acme: 'ab12…' }, key: process.env.ARBITER_AUDIT_KEY });
 */
export function auditCheckpoint({
  chainStarts,
  key,
}: {
  chainStarts: Readonly<Record<string, string>>;
  key?: string | undefined;
}): AuditCheckpoint {
  return {
    chain_starts: chainStarts,
    signature: key === undefined || key === '' ? null : checkpointSignature({ chainStarts, key }),
  };
}

function checkpointSignature({ chainStarts, key }: { chainStarts: Readonly<Record<string, string>>; key: string }) {
  return createHmac('sha256', key).update(canonicalJson(chainStarts)).digest('hex');
}

/**
 * Recomputes every chain of an audit log from its rows (all of them, in
 * `audit_id` order) and names the first row where each break shows: a row
 * changed after it was written, a row inserted by hand, rows deleted before
 * a row (outside a purge, whose checkpoint row records where the remaining
 * chain starts), a row without hashes that is not older than the chain
 * (`origin`: after its start, or more rows before it than it recorded).
 * With `key` (`ARBITER_AUDIT_KEY`), checkpoints must carry its signature.
 * After a finding the check goes on from the row's stored hash, so one
 * tampered row is reported once.
 *
 * @example
 * const report = verifyAuditChain({ rows, purgeTool: auditPurgeTool, argumentsColumn, key });
 * for (const finding of report.findings) console.log(finding.message);
 */
export function verifyAuditChain({
  rows,
  purgeTool,
  toolColumn,
  argumentsColumn,
  tenantColumn,
  atColumn,
  origin,
  key,
}: {
  rows: readonly AuditChainRow[];
  /** When the chain began; undefined when the store has no record of it (a finding: rows without hashes are then never accepted). */
  origin: AuditChainOrigin | undefined;
  /** The index of `at` in a row's values. */
  atColumn: number;
  /** The tool name of purge rows, whose arguments carry a checkpoint. */
  purgeTool: string;
  toolColumn: number;
  argumentsColumn: number;
  tenantColumn: number;
  key?: string | undefined;
}): AuditChainReport {
  const findings: AuditChainFinding[] = [];
  const starts = new Map<string, Set<string>>();
  let unsignedCheckpoints = 0;
  for (const row of rows) {
    if (row.values[toolColumn] !== purgeTool || row.chainHash === null) continue;
    const checkpoint = readCheckpoint(row.values[argumentsColumn] ?? null);
    if (checkpoint === undefined) continue;
    const signed =
      checkpoint.signature !== null &&
      key !== undefined &&
      key !== '' &&
      checkpoint.signature === checkpointSignature({ chainStarts: checkpoint.chain_starts, key });
    if (!signed) {
      if (key !== undefined && key !== '') {
        findings.push({
          auditId: row.auditId,
          tenant: auditChainKey(row.values[tenantColumn] as string | null),
          kind: 'checkpoint',
          message: `row ${row.auditId}: purge checkpoint is not signed with the configured ARBITER_AUDIT_KEY`,
        });
        continue;
      }
      unsignedCheckpoints += 1;
    }
    for (const [tenant, hash] of Object.entries(checkpoint.chain_starts)) {
      const known = starts.get(tenant) ?? new Set<string>();
      known.add(hash);
      starts.set(tenant, known);
    }
  }
  /** Per chain: the stored hash of its newest row, and that row's own previous hash (to spot an inserted row). */
  const heads = new Map<string, { hash: string; previousHash: string | null; auditId: number }>();
  let unchained = 0;
  if (origin === undefined) {
    findings.push({
      auditId: 0,
      tenant: '',
      kind: 'origin',
      message:
        'the record of when the chain began (audit_chain_origin) is missing: no row without hashes can be trusted',
    });
  }
  const firstChained = rows.find((row) => row.chainHash !== null)?.auditId ?? Number.POSITIVE_INFINITY;
  for (const row of rows) {
    const tenant = auditChainKey(row.values[tenantColumn] as string | null);
    const head = heads.get(tenant);
    if (row.chainHash === null) {
      const olderThanChain =
        origin !== undefined &&
        head === undefined &&
        row.auditId < firstChained &&
        row.auditId <= origin.lastRowId &&
        Number(row.values[atColumn]) < origin.startedAt;
      if (olderThanChain) unchained += 1;
      else
        findings.push(
          finding(
            row,
            tenant,
            'inserted',
            'has no chain hash but was written after the chain began: inserted outside the audit log',
          ),
        );
      continue;
    }
    const consistent = row.chainHash === auditRowHash({ previousHash: row.previousHash, values: row.values });
    const expectedPrevious = head?.hash ?? null;
    const linked =
      row.previousHash === expectedPrevious ||
      (head === undefined && (row.previousHash === null || starts.get(tenant)?.has(row.previousHash) === true));
    if (!consistent) {
      findings.push(
        linked
          ? finding(row, tenant, 'changed', 'was changed after it was written (its content does not match its hash)')
          : finding(row, tenant, 'inserted', 'was inserted outside the audit log (its hash does not hold)'),
      );
    } else if (!linked) {
      if (head !== undefined && row.previousHash === head.previousHash) {
        findings.push({
          auditId: head.auditId,
          tenant,
          kind: 'inserted',
          message: `row ${head.auditId} (tenant ${tenant === '' ? '-' : tenant}) was inserted outside the audit log (the next row of its chain, ${row.auditId}, skips it)`,
        });
      } else {
        findings.push(finding(row, tenant, 'deleted', 'follows rows that were deleted (its previous hash is unknown)'));
      }
    }
    heads.set(tenant, { hash: row.chainHash, previousHash: row.previousHash, auditId: row.auditId });
  }
  if (origin !== undefined) {
    const beforeOrigin = rows.filter((row) => row.auditId <= origin.lastRowId);
    const newest = beforeOrigin[beforeOrigin.length - 1];
    if (newest !== undefined && beforeOrigin.length > origin.rowsThen) {
      const tenant = auditChainKey(newest.values[tenantColumn] as string | null);
      findings.push(
        finding(
          newest,
          tenant,
          'inserted',
          `ends ${beforeOrigin.length} rows from before the chain began where ${origin.rowsThen} were recorded when it began: rows were inserted among them`,
        ),
      );
    }
  }
  findings.sort((left, right) => left.auditId - right.auditId);
  return {
    ok: findings.length === 0,
    rows: rows.length,
    unchained,
    findings,
    heads: new Map([...heads].map(([tenant, head]) => [tenant, head.hash])),
    unsignedCheckpoints,
  };
}

function finding(row: AuditChainRow, tenant: string, kind: AuditChainFinding['kind'], what: string): AuditChainFinding {
  return {
    auditId: row.auditId,
    tenant,
    kind,
    message: `row ${row.auditId} (tenant ${tenant === '' ? '-' : tenant}) ${what}`,
  };
}

function readCheckpoint(text: string | number | null): AuditCheckpoint | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed = JSON.parse(text) as { checkpoint?: AuditCheckpoint };
    const checkpoint = parsed.checkpoint;
    if (typeof checkpoint !== 'object' || checkpoint === null) return undefined;
    if (typeof checkpoint.chain_starts !== 'object' || checkpoint.chain_starts === null) return undefined;
    return checkpoint;
  } catch {
    return undefined;
  }
}
