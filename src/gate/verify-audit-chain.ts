import {
  type AuditChainEnd,
  type AuditChainFinding,
  type AuditChainOrigin,
  type AuditChainReport,
  type AuditChainRow,
  auditChainKey,
  auditRowHash,
  sealAuditChains,
} from './audit-chain.js';
import { type AuditCheckpoint, isSignedCheckpoint, readAuditCheckpoint } from './audit-checkpoint.js';
import { auditOriginSeal } from './audit-origin-seal.js';
import { auditRecordHash } from './audit-record-hash.js';

/** A chain's head as an anchor recorded it (`AuditAnchor.chains`), its signature already checked. */
export interface AnchoredChain extends AuditChainEnd {
  /** When the anchor was taken, for the message. */
  readonly anchoredAt: number;
}

/** An anchor whose signature holds (`checkAuditAnchor`), as `verifyAuditChain` checks the log against it. */
export interface CheckedAuditAnchor {
  /** When it was taken, in milliseconds since the epoch. */
  readonly at: number;
  /** The store it was taken of; undefined for an anchor of the first format (`arbiter-audit-anchor-v1`). */
  readonly store: string | undefined;
  /** When that store's chain began; undefined for an anchor of the first format. */
  readonly origin: Omit<AuditChainOrigin, 'store'> | undefined;
  /** The newest row of every chain then. */
  readonly chains: readonly AuditChainEnd[];
}

/** The state of one chain while its rows are read. */
interface ChainState {
  readonly hash: string;
  readonly previousHash: string | null;
  readonly seq: number | null;
  readonly auditId: number;
  readonly tenant: string;
  readonly writer: string | null;
}

const chainId = (tenant: string, writer: string | null) =>
  writer === null ? `1\u0000${tenant}` : `2\u0000${writer}\u0000${tenant}`;
const tenantLabel = (tenant: string) => (tenant === '' ? '-' : tenant);

/**
 * Recomputes every chain of an audit log from its rows (all of them, in
 * `audit_id` order) and names the first row where each break shows: a row
 * changed after it was written, a row inserted by hand, rows deleted before
 * a row (outside a purge, whose checkpoint row records where the remaining
 * chains start), a row without hashes that is not older than the chain
 * (`origin`: after its start, or more rows before it than it recorded), and
 * with `anchor` a chain that ends before the head an anchor recorded. Rows
 * of both formats verify: the first (one chain per tenant, positional
 * values) and the second (a chain per writer and tenant, a named record).
 * With `key` (`ARBITER_AUDIT_KEY`), checkpoints must carry its signature.
 * After a finding the check goes on from the row's stored hash, so one
 * tampered row is reported once.
 *
 * The origin is bound: the first row of every chain begun since the store
 * had an id links to the origin seal (`auditOriginSeal`: the store's id
 * and when its chain began), and every purge checkpoint records it. An
 * origin that no longer matches a chain, a checkpoint or the anchor is
 * named (`origin`) and is then not trusted: no row without hashes is
 * accepted on its word (with an anchor of this store, the anchor's origin
 * decides instead). An anchor of another store is named as such (`anchor`)
 * and its heads are not checked.
 *
 * @example
 * const report = verifyAuditChain({ rows, origin, purgeTool: auditPurgeTool, key });
 * for (const finding of report.findings) console.log(finding.message);
 */
export function verifyAuditChain({
  rows,
  origin,
  purgeTool,
  key,
  anchor,
}: {
  rows: readonly AuditChainRow[];
  /** When the chain began, and the store's id; undefined when the store has no record of it (a finding: rows without hashes are then never accepted). */
  origin: AuditChainOrigin | undefined;
  /** The tool name of purge rows, whose arguments carry a checkpoint. */
  purgeTool: string;
  key?: string | undefined;
  /** An anchor whose signature holds (`checkAuditAnchor`). */
  anchor?: CheckedAuditAnchor | undefined;
}): AuditChainReport {
  const findings: AuditChainFinding[] = [];
  const keyed = key !== undefined && key !== '';
  /** Per chain: the hashes (and for the second format, places) where a purge left it starting. */
  const starts = new Map<string, { hash: string; seq: number | null }[]>();
  const seal = origin?.store === undefined ? undefined : auditOriginSeal({ ...origin, store: origin.store });
  /** Whether something sealed with the origin (a chain's first row, a checkpoint) no longer matches it. */
  let originMoved = false;
  let unsignedCheckpoints = 0;
  for (const row of rows) {
    if (row.record.tool !== purgeTool || row.chainHash === null) continue;
    const checkpoint = readAuditCheckpoint(row.record.arguments);
    if (checkpoint === undefined) continue;
    if (!(keyed && isSignedCheckpoint(checkpoint, key))) {
      if (keyed) {
        findings.push({
          auditId: row.auditId,
          tenant: auditChainKey(row.record.tenantId as string | null),
          kind: 'checkpoint',
          message: `row ${row.auditId}: purge checkpoint is not signed with the configured ARBITER_AUDIT_KEY`,
        });
        continue;
      }
      unsignedCheckpoints += 1;
    }
    addStarts(starts, checkpoint);
    if (checkpoint.origin !== undefined && checkpoint.origin !== seal) {
      originMoved = true;
      findings.push({
        auditId: row.auditId,
        tenant: auditChainKey(row.record.tenantId as string | null),
        kind: 'origin',
        message: `row ${row.auditId}: the purge checkpoint was taken of another origin than this store records now: its id (audit_store) or when its chain began (audit_chain_origin) was changed`,
      });
    }
  }
  if (origin === undefined) {
    findings.push({
      auditId: 0,
      tenant: '',
      kind: 'origin',
      message:
        'the record of when the chain began (audit_chain_origin) is missing: no row without hashes can be trusted',
    });
  } else if (origin.store === undefined) {
    findings.push({
      auditId: 0,
      tenant: '',
      kind: 'origin',
      message:
        "the store's id (audit_store) is missing: the origin the chains were sealed with cannot be checked, no row without hashes can be trusted",
    });
  }
  for (const row of rows) {
    const second = row.writer !== null && row.seq !== null;
    if (row.chainHash === null || !second || row.seq !== 1 || row.previousHash === null) continue;
    if (row.previousHash === seal) continue;
    const tenant = auditChainKey(row.record.tenantId as string | null);
    if ((starts.get(chainId(tenant, row.writer)) ?? []).some((start) => start.hash === row.previousHash)) continue;
    originMoved = true;
    findings.push(
      finding(
        row,
        tenant,
        'origin',
        `begins chain ${row.writer} from another origin than this store records now: its id (audit_store) or when its chain began (audit_chain_origin) was changed`,
      ),
    );
  }
  const anchorOrigin = checkAnchorOrigin({ anchor, origin, findings });
  /** The origin rows without hashes are judged by: the anchor's, else the store's unless something sealed with it disagrees. */
  const trusted =
    typeof anchorOrigin === 'object' ? anchorOrigin : originMoved || origin?.store === undefined ? undefined : origin;
  const anchored: AnchoredChain[] =
    anchor === undefined || anchorOrigin === 'another store'
      ? []
      : anchor.chains.map((chain) => ({ ...chain, anchoredAt: anchor.at }));
  const firstChained = rows.find((row) => row.chainHash !== null)?.auditId ?? Number.POSITIVE_INFINITY;
  const firstSecondFormat =
    rows.find((row) => row.chainHash !== null && row.writer !== null)?.auditId ?? Number.POSITIVE_INFINITY;
  const heads = new Map<string, ChainState>();
  /** Every hash of every chain by place (second format: seq; first: audit_id), for an anchor. */
  const hashes = new Map<string, Map<number, string>>();
  let unchained = 0;
  for (const row of rows) {
    const tenant = auditChainKey(row.record.tenantId as string | null);
    if (row.chainHash === null) {
      const olderThanChain =
        trusted !== undefined &&
        row.auditId < firstChained &&
        row.auditId <= trusted.lastRowId &&
        Number(row.record.at) < trusted.startedAt;
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
    const second = row.writer !== null && row.seq !== null;
    const id = chainId(tenant, second ? row.writer : null);
    const head = heads.get(id);
    const consistent =
      row.chainHash ===
      (second
        ? auditRecordHash({
            record: row.record,
            link: { writer: row.writer as string, seq: row.seq as number, previousHash: row.previousHash },
          })
        : auditRowHash({ previousHash: row.previousHash, values: row.values }));
    const fromStart = (starts.get(id) ?? []).some(
      (start) => start.hash === row.previousHash && (!second || start.seq === (row.seq as number) - 1),
    );
    // No chain of the first format starts once the second has begun: such a row was made up.
    const lateFirstFormat = !second && head === undefined && row.auditId > firstSecondFormat;
    // A chain of the second format starts at place 1, from nothing or from an origin seal (a seal that is not this
    // store's was named above).
    const linked =
      head === undefined
        ? (second ? row.seq === 1 : row.previousHash === null && !lateFirstFormat) || fromStart
        : row.previousHash === head.hash && (!second || row.seq === (head.seq as number) + 1);
    if (lateFirstFormat && !linked) {
      findings.push(
        finding(
          row,
          tenant,
          'inserted',
          'was inserted outside the audit log (a chain of the first format started after the second)',
        ),
      );
    } else if (!consistent) {
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
          message: `row ${head.auditId} (tenant ${tenantLabel(tenant)}) was inserted outside the audit log (the next row of its chain, ${row.auditId}, skips it)`,
        });
      } else {
        findings.push(finding(row, tenant, 'deleted', 'follows rows that were deleted (its previous hash is unknown)'));
      }
    }
    const state = {
      hash: row.chainHash,
      previousHash: row.previousHash,
      seq: second ? row.seq : null,
      auditId: row.auditId,
      tenant,
      writer: second ? row.writer : null,
    };
    heads.set(id, state);
    if (anchored.length > 0) {
      const places = hashes.get(id) ?? new Map<number, string>();
      places.set(second ? (row.seq as number) : row.auditId, row.chainHash);
      hashes.set(id, places);
    }
  }
  if (trusted !== undefined) {
    const beforeOrigin = rows.filter((row) => row.auditId <= trusted.lastRowId);
    const newest = beforeOrigin[beforeOrigin.length - 1];
    const named = (auditId: number) => findings.some((found) => found.auditId === auditId && found.kind === 'inserted');
    if (newest !== undefined && beforeOrigin.length > trusted.rowsThen && !named(newest.auditId)) {
      findings.push(
        finding(
          newest,
          auditChainKey(newest.record.tenantId as string | null),
          'inserted',
          `ends ${beforeOrigin.length} rows from before the chain began where ${trusted.rowsThen} were recorded when it began: rows were inserted among them`,
        ),
      );
    }
  }
  for (const chain of anchored) findings.push(...checkAnchored({ chain, heads, hashes, starts }));
  findings.sort((left, right) => left.auditId - right.auditId);
  const chains: AuditChainEnd[] = [...heads.values()].map(({ tenant, writer, seq, auditId, hash }) => ({
    tenant,
    writer,
    seq,
    auditId,
    hash,
  }));
  const tenants = [...new Set(chains.map((chain) => chain.tenant))];
  const tenantRows: Record<string, number> = {};
  for (const row of rows) {
    const tenant = auditChainKey(row.record.tenantId as string | null);
    tenantRows[tenant] = (tenantRows[tenant] ?? 0) + 1;
  }
  return {
    ok: findings.length === 0,
    rows: rows.length,
    tenantRows,
    origin,
    unchained,
    findings,
    heads: new Map(
      tenants.map((tenant) => [tenant, sealAuditChains({ tenant, chains: chains.filter((c) => c.tenant === tenant) })]),
    ),
    chains,
    unsignedCheckpoints,
  };
}

/**
 * What an anchor says of the store and its origin: `another store` (named,
 * its heads then not checked), the anchor's origin when it is of this store
 * (named too when the store's record differs from it), or undefined for an
 * anchor of the first format or none.
 */
function checkAnchorOrigin({
  anchor,
  origin,
  findings,
}: {
  anchor: CheckedAuditAnchor | undefined;
  origin: AuditChainOrigin | undefined;
  findings: AuditChainFinding[];
}): Omit<AuditChainOrigin, 'store'> | 'another store' | undefined {
  if (anchor?.store === undefined || anchor.origin === undefined) return undefined;
  const when = new Date(anchor.at).toISOString();
  if (anchor.store !== origin?.store) {
    findings.push({
      auditId: 0,
      tenant: '',
      kind: 'anchor',
      message: `this anchor (of ${when}) belongs to store ${anchor.store}, not to this store (${origin?.store ?? 'which has no id'}): its chain heads were not checked`,
    });
    return 'another store';
  }
  const held = anchor.origin;
  if (held.lastRowId !== origin.lastRowId || held.rowsThen !== origin.rowsThen || held.startedAt !== origin.startedAt) {
    findings.push({
      auditId: 0,
      tenant: '',
      kind: 'origin',
      message: `audit_chain_origin records ${describeOrigin(origin)} where the anchor of ${when} holds ${describeOrigin(held)}: the record of when the chain began was changed`,
    });
  }
  return held;
}

const describeOrigin = ({ lastRowId, rowsThen, startedAt }: Omit<AuditChainOrigin, 'store'>) =>
  `${rowsThen} rows up to row ${lastRowId} before ${new Date(startedAt).toISOString()}`;

function addStarts(starts: Map<string, { hash: string; seq: number | null }[]>, checkpoint: AuditCheckpoint): void {
  const add = (id: string, start: { hash: string; seq: number | null }) => {
    const known = starts.get(id) ?? [];
    known.push(start);
    starts.set(id, known);
  };
  for (const [tenant, hash] of Object.entries(checkpoint.chain_starts)) add(chainId(tenant, null), { hash, seq: null });
  for (const chain of checkpoint.chains ?? []) {
    if (typeof chain?.hash !== 'string' || typeof chain.seq !== 'number') continue;
    add(chainId(String(chain.tenant), String(chain.writer)), { hash: chain.hash, seq: chain.seq });
  }
}

/**
 * What an anchored head says of the log now: its row is still there with the
 * same hash; or a purge cut the chain past it; or the chain was cut short
 * (rows deleted after the anchor) or rewritten.
 */
function checkAnchored({
  chain,
  heads,
  hashes,
  starts,
}: {
  chain: AnchoredChain;
  heads: ReadonlyMap<string, ChainState>;
  hashes: ReadonlyMap<string, ReadonlyMap<number, string>>;
  starts: ReadonlyMap<string, readonly { hash: string; seq: number | null }[]>;
}): AuditChainFinding[] {
  const id = chainId(chain.tenant, chain.writer);
  const place = chain.writer === null ? chain.auditId : (chain.seq ?? 0);
  const stored = hashes.get(id)?.get(place);
  const head = heads.get(id);
  const label = `${chain.writer === null ? 'the chain' : `chain ${chain.writer}`} of tenant ${tenantLabel(chain.tenant)}`;
  const when = new Date(chain.anchoredAt).toISOString();
  if (stored === chain.hash) return [];
  const firstPlace = Math.min(...(hashes.get(id)?.keys() ?? [Number.POSITIVE_INFINITY]));
  const purgedPast = (starts.get(id) ?? []).some((start) =>
    chain.writer === null ? firstPlace > place : start.seq !== null && start.seq >= place,
  );
  if (stored === undefined && purgedPast) return [];
  if (stored !== undefined) {
    return [
      {
        auditId: head?.auditId ?? 0,
        tenant: chain.tenant,
        kind: 'truncated',
        message: `${label} differs from the anchor of ${when} at row ${chain.auditId}: rewritten since the anchor was taken`,
      },
    ];
  }
  const end =
    head === undefined
      ? 'has no rows left'
      : `ends at row ${head.auditId}${head.seq === null ? '' : ` (seq ${head.seq})`}`;
  return [
    {
      auditId: head?.auditId ?? 0,
      tenant: chain.tenant,
      kind: 'truncated',
      message: `${label} ${end} where the anchor of ${when} holds row ${chain.auditId}${chain.seq === null ? '' : ` (seq ${chain.seq})`}: rows were deleted after the anchor`,
    },
  ];
}

function finding(row: AuditChainRow, tenant: string, kind: AuditChainFinding['kind'], what: string): AuditChainFinding {
  return {
    auditId: row.auditId,
    tenant,
    kind,
    message: `row ${row.auditId} (tenant ${tenantLabel(tenant)}) ${what}`,
  };
}
