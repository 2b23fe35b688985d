import type { ExecutedDecision, PastCall } from '../core/call-history.js';
import {
  type AuditChainOrigin,
  type AuditChainReport,
  type AuditChainRow,
  auditChainKey,
} from '../gate/audit-chain.js';
import type { AuditChainCut } from '../gate/audit-checkpoint.js';
import type { AuditDecision, AuditEntry } from '../gate/audit-log.js';
import {
  type AuditChainHead,
  type AuditChainRecord,
  type AuditRecordField,
  auditFieldsHash,
} from '../gate/audit-record-hash.js';
import { auditPurgeTool } from '../gate/audit-retention.js';
import { type CheckedAuditAnchor, verifyAuditChain } from '../gate/verify-audit-chain.js';
import type { SideEffect } from '../tools/tool-types.js';

/**
 * An audit entry as stored, with its position in the log.
 *
 * @example
 * const [first]: readonly AuditRecord[] = audit.listAudit({ sessionId });
 */
export interface AuditRecord extends AuditEntry {
  /** Increasing with every append; the log's order. */
  readonly auditId: number;
}

/** A row of `audit_log` as both backends read it. */
export interface AuditRow {
  audit_id: number;
  at: number;
  session_id: string | null;
  run_id: string;
  step: number;
  tool_call_id: string;
  tool: string;
  side_effect: SideEffect;
  arguments_hash: string;
  arguments: string;
  decision: AuditDecision;
  rule: string | null;
  approver: string | null;
  outcome: string;
  duration_ms: number;
  tenant_id: string | null;
  user_id: string | null;
  replay_of_run_id: string | null;
  replay_of_tool_call_id: string | null;
  /** The called tool's definition fingerprint (a third party's, pinned); null for other tools and older rows. */
  tool_fingerprint?: string | null;
  /** The hash chain (`audit-chain.ts`): the writer and place of a row of the second format; null before it. */
  chain_writer?: string | null;
  chain_seq?: number | null;
  /** The hash chain (`audit-chain.ts`): null for rows written before it existed. */
  previous_hash?: string | null;
  chain_hash?: string | null;
}

/**
 * The columns an append writes, in the order of `toAuditRowValues`.
 *
 * @example
 * `INSERT INTO audit_log (${auditWrittenColumns}) VALUES (…)`;
 */
export const auditWrittenColumns =
  'at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments, decision, rule, approver, ' +
  'outcome, duration_ms, tenant_id, user_id, replay_of_run_id, replay_of_tool_call_id, tool_fingerprint';

/** The columns of the hash chain, written after `auditWrittenColumns` (see `linkAuditRowValues`). */
export const auditChainColumns = 'chain_writer, chain_seq, previous_hash, chain_hash';

const writtenColumnNames = auditWrittenColumns.split(',').map((column) => column.trim()) as (keyof AuditRow)[];
/** The name of each written column in the hashed record: `tool_call_id` → `toolCallId`. */
const recordFieldNames = writtenColumnNames.map((column) =>
  column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
);
/** Each field with the index of its column, in the order the record is hashed in (ascending names): no sort per row. */
const recordFields: readonly AuditRecordField<number>[] = recordFieldNames
  .map((name, key) => ({ name, key }))
  .sort((left, right) => (left.name < right.name ? -1 : 1));

/** Where the chain reads a row's tenant, tool and arguments among its values. */
export const auditColumnIndex = {
  tenant: writtenColumnNames.indexOf('tenant_id'),
  at: writtenColumnNames.indexOf('at'),
  tool: writtenColumnNames.indexOf('tool'),
  arguments: writtenColumnNames.indexOf('arguments'),
  /** In a row linked by `linkAuditRowValues`: its own hash, the last value. */
  chainHash: writtenColumnNames.length + 3,
} as const;

/**
 * A stored row as the hash chain reads it: its values in the order of
 * `auditWrittenColumns`, exactly as they were written, and its hashes.
 *
 * @example
 * const report = verifyAuditChain({ rows: rows.map(toAuditChainRow), ... });
 */
export function toAuditChainRow(row: AuditRow): AuditChainRow {
  const values = writtenColumnNames.map((column) => (row[column] ?? null) as string | number | null);
  return {
    auditId: row.audit_id,
    values,
    record: toAuditChainRecord(values),
    writer: row.chain_writer ?? null,
    seq: row.chain_seq ?? null,
    previousHash: row.previous_hash ?? null,
    chainHash: row.chain_hash ?? null,
  };
}

/**
 * A row's values (in the order of `auditWrittenColumns`) as the named record
 * the chain hashes: each column under its camel-cased name.
 *
 * @example
 * toAuditChainRecord(toAuditRowValues(entry)).toolCallId;
 */
export function toAuditChainRecord(values: readonly (string | number | null)[]): AuditChainRecord {
  const record: Record<string, string | number | null> = {};
  for (const { name, key } of recordFields) record[name] = values[key] ?? null;
  return record;
}

/**
 * Appends the chain's four values (`auditChainColumns`) to each row, oldest
 * first, each row linked onto the head of `writer`'s chain of its tenant in
 * `heads` (tenant → head; a tenant missing from it is asked of `headOf`,
 * null: the chain starts). Returns the linked rows and `heads`, moved on to
 * the heads after them: a caller that may have to drop the rows (a
 * transaction rolled back) hands in a map it can drop with them.
 *
 * @example
 * const { rows: linked, heads: next } = linkAuditRowValues({ rows, writer: 'sqlite', heads: new Map(), headOf: () => null });
 */
export function linkAuditRowValues({
  rows,
  writer,
  heads,
  headOf,
}: {
  rows: readonly AuditRowValues[];
  writer: string;
  /** Updated in place. */
  heads: Map<string, AuditChainHead | null>;
  headOf: (tenant: string) => AuditChainHead | null;
}): { rows: AuditRowValues[]; heads: Map<string, AuditChainHead | null> } {
  const linked: AuditRowValues[] = [];
  for (const values of rows) {
    const tenant = auditChainKey(values[auditColumnIndex.tenant] as string | null);
    const head = heads.has(tenant) ? (heads.get(tenant) ?? null) : headOf(tenant);
    // One row at a time onto its tenant's head: `linkAuditRecords` of one record, without its arrays.
    const seq = (head?.seq ?? 0) + 1;
    const previousHash = head?.hash ?? null;
    const chainHash = auditFieldsHash({ fields: recordFields, values, link: { writer, seq, previousHash } });
    heads.set(tenant, { seq, hash: chainHash });
    const row = values.slice();
    row.push(writer, seq, previousHash, chainHash);
    linked.push(row);
  }
  return { rows: linked, heads };
}

/** An audit row's values, in the order of `auditWrittenColumns`. */
export type AuditRowValues = (string | number | null)[];

/**
 * The row as it is written, taken when the entry is appended (later changes to `entry` are not recorded).
 *
 * @example
 * insert.run(...toAuditRowValues(entry));
 */
export function toAuditRowValues(entry: AuditEntry): AuditRowValues {
  return [
    entry.at,
    entry.sessionId ?? null,
    entry.runId,
    entry.step,
    entry.toolCallId,
    entry.tool,
    entry.sideEffect,
    entry.argumentsHash,
    JSON.stringify(entry.arguments),
    entry.decision,
    entry.rule ?? null,
    entry.approver ?? null,
    entry.outcome,
    entry.durationMs,
    entry.tenantId ?? null,
    entry.userId ?? null,
    entry.replayOf?.runId ?? null,
    entry.replayOf?.toolCallId ?? null,
    entry.toolFingerprint ?? null,
  ];
}

/**
 * A stored row as the entry it records.
 *
 * @example
 * const records = rows.map(toAuditRecord);
 */
export function toAuditRecord(row: AuditRow): AuditRecord {
  return {
    auditId: row.audit_id,
    at: row.at,
    sessionId: row.session_id ?? undefined,
    runId: row.run_id,
    step: row.step,
    toolCallId: row.tool_call_id,
    tool: row.tool,
    sideEffect: row.side_effect,
    argumentsHash: row.arguments_hash,
    arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    decision: row.decision,
    rule: row.rule ?? undefined,
    approver: row.approver ?? undefined,
    outcome: row.outcome,
    durationMs: row.duration_ms,
    ...(row.tenant_id === null ? {} : { tenantId: row.tenant_id }),
    ...(row.user_id === null ? {} : { userId: row.user_id }),
    ...(row.replay_of_run_id === null || row.replay_of_tool_call_id === null
      ? {}
      : { replayOf: { runId: row.replay_of_run_id, toolCallId: row.replay_of_tool_call_id } }),
    ...(row.tool_fingerprint === null || row.tool_fingerprint === undefined
      ? {}
      : { toolFingerprint: row.tool_fingerprint }),
  };
}

/**
 * A stored row as the earlier call a rule reads in `context.history`
 * (`findCalls` reads only rows of calls that executed).
 *
 * @example
 * const calls = rows.map(toPastCall);
 */
export function toPastCall(row: AuditRow): PastCall {
  const { at, runId, sessionId, toolCallId, tool, arguments: values, decision, rule } = toAuditRecord(row);
  return { at, runId, sessionId, toolCallId, tool, arguments: values, decision: decision as ExecutedDecision, rule };
}

/**
 * Verifies the hash chains of stored rows (all of a log's rows, in
 * `audit_id` order): see `verifyAuditChain`.
 *
 * @example
 * const report = verifyAuditRows({ rows, origin, store, key: process.env.ARBITER_AUDIT_KEY });
 */
export function verifyAuditRows({
  rows,
  origin,
  store,
  key,
  anchor,
}: {
  /** A checked anchor (`checkAuditAnchor`): rows deleted after it, its store and its origin are checked. */
  anchor?: CheckedAuditAnchor | undefined;
  rows: readonly AuditRow[];
  /** The row of `audit_chain_origin` (`readAuditOrigin`); undefined when it is missing. */
  origin: AuditChainOriginRow | undefined;
  /** The store's id (`audit_store`); undefined when it is missing. */
  store: string | undefined;
  /** The key purge checkpoints are signed with (`ARBITER_AUDIT_KEY`); without it signatures are not checked. */
  key?: string | undefined;
}): AuditChainReport {
  return verifyAuditChain({
    rows: rows.map(toAuditChainRow),
    purgeTool: auditPurgeTool,
    anchor,
    origin:
      origin === undefined
        ? undefined
        : {
            lastRowId: Number(origin.last_row_id),
            rowsThen: Number(origin.rows_then),
            startedAt: Number(origin.started_at),
            store,
          },
    key,
  });
}

/** The one row of `audit_chain_origin` as both backends read it (PostgreSQL's bigint may come as a string). */
export interface AuditChainOriginRow {
  last_row_id: number | string;
  rows_then: number | string;
  started_at: number | string;
}

export type { AuditChainOrigin };

/** The newest row a purge deletes from one chain, as both dialects select it (`seq` a string where a driver reads bigint so). */
export interface AuditChainCutRow {
  tenant: string;
  /** Null for a chain of the first format. */
  writer: string | null;
  seq: number | string | null;
  hash: string;
}

/**
 * A selected cut as the checkpoint reads it (`auditCheckpointOfCut`).
 *
 * @example
 * const checkpoint = auditCheckpointOfCut({ cut: rows.map(toAuditChainCut), key });
 */
export function toAuditChainCut({ tenant, writer, seq, hash }: AuditChainCutRow): AuditChainCut {
  return { tenant, writer, seq: seq === null ? null : Number(seq), hash };
}
