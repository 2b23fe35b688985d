import { type AuditChainOriginRecord, auditOriginSeal } from '../../gate/audit-origin-seal.js';
import type { AuditChainOriginRow } from '../audit-rows.js';
import { chainAnswer, mapAnswer, recoverAnswer } from '../sql/answers.js';
import type { Answer, SqlMode, SqlPort } from '../sql/sql-port.js';
import { rows, type SqlProgram, sql } from '../sql/sql-program.js';

/** The reads of the store's id and of when its chain began. */
export const auditOriginStatements = {
  /** When the chain began: the one row of `audit_chain_origin` (migration 26). */
  origin: sql('SELECT last_row_id, rows_then, started_at FROM audit_chain_origin'),
  /** The store's id: the one row of `audit_store` (migration 21). */
  store: sql('SELECT store_id FROM audit_store'),
} as const;

/** The store's records of its chain's beginning as read, each undefined when it is missing. */
export interface StoredAuditOrigin {
  readonly origin: AuditChainOriginRow | undefined;
  readonly store: string | undefined;
}

/**
 * Reads the store's id and when its chain began; a missing table or row
 * reads as undefined (a schema before migrations 21 and 26, or a record
 * removed by hand, which `verifyAuditChain` names).
 *
 * @example
 * const { origin, store } = await readAuditOrigin(port);
 */
export function readAuditOrigin<Mode extends SqlMode>(port: SqlPort<Mode>): Answer<Mode, StoredAuditOrigin> {
  const first = <Row>(program: SqlProgram<Row[]>): Answer<Mode, Row | undefined> =>
    recoverAnswer(
      () => mapAnswer(port.run(program), ([row]) => row),
      (error) => {
        if (isMissingTable(error)) return undefined;
        throw error;
      },
    );
  return chainAnswer(first(rows<AuditChainOriginRow>(auditOriginStatements.origin)), (origin) =>
    mapAnswer(first(rows<{ store_id: string }>(auditOriginStatements.store)), (store) => ({
      origin,
      store: store?.store_id,
    })),
  );
}

/**
 * The origin seal of what was read (`auditOriginSeal`), or undefined when
 * the store's id or its origin is missing.
 *
 * @example
 * const seal = storedOriginSeal(await readAuditOrigin(port));
 */
export function storedOriginSeal(stored: StoredAuditOrigin): string | undefined {
  const record = toAuditOriginRecord(stored);
  return record === undefined ? undefined : auditOriginSeal(record);
}

/**
 * What was read as one record, or undefined when either part is missing.
 *
 * @example
 * const head = auditGenesisHead(toAuditOriginRecord(await readAuditOrigin(port)));
 */
export function toAuditOriginRecord({ origin, store }: StoredAuditOrigin): AuditChainOriginRecord | undefined {
  if (origin === undefined || store === undefined) return undefined;
  return {
    store,
    lastRowId: Number(origin.last_row_id),
    rowsThen: Number(origin.rows_then),
    startedAt: Number(origin.started_at),
  };
}

/** A statement failed because a table it reads is missing (SQLite's message, PostgreSQL's `42P01`). */
export function isMissingTable(error: unknown): boolean {
  if ((error as { code?: unknown } | null)?.code === '42P01') return true;
  return error instanceof Error && /no such table/.test(error.message);
}
