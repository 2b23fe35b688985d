import type Database from 'better-sqlite3';
import { type AuditRowValues, auditChainColumns, auditWrittenColumns } from '../audit-rows.js';

/** Writes audit rows (values in the order of `auditWrittenColumns`, then `auditChainColumns`) with as few statements and bound values as it can. */
export type AuditRowInsert = (rows: readonly AuditRowValues[]) => void;

const linkedColumns = `${auditWrittenColumns}, ${auditChainColumns}`;
const columns = linkedColumns.split(',').map((column) => column.trim());
/** Rows without the chain's values (a log before migrations 27 and 28) are written without them. */
const unlinkedColumnCount = auditWrittenColumns.split(',').length;
const maskSize = 2 ** columns.length;
// The statement cache's key must stay an exact integer (two masks, rows below 64, a width bit).
if (maskSize * maskSize * 128 > 2 ** 53)
  throw new RangeError('audit_log has too many columns for the insert cache key');
/** 32 rows of at most 23 values: far below SQLite's limit of bound values per statement. */
const rowsPerInsert = 32;
/** Statement shapes kept per connection; the oldest is forgotten beyond this. */
const cachedShapes = 64;

/**
 * The insert of the audit rows. Binding a value costs more than SQLite's
 * whole work for it (a string bound through better-sqlite3 about 0.2-0.3
 * µs), and most of a row repeats the rows beside it: a run's calls share
 * its run, session and principal, a turn's calls their tool, tier,
 * decision and outcome, and most columns are null. So each statement binds
 * a value the rows of its chunk share once, leaves out a column null in
 * all of them, and binds only what differs, row by row:
 *
 *   INSERT INTO audit_log (…) SELECT v.column1, c.k1, … FROM (SELECT ? AS k1, …) AS c, (VALUES (?, ?), …) AS v
 *
 * Only which columns are shared, and how many rows, shape the statement:
 * every value is still bound, never written into the SQL. A batch of 19
 * calls of one run binds about 130 values instead of 342, and its insert
 * costs about half as much. A single row (a step's, committed with it) is
 * a plain `VALUES` row of its columns not null, the same values bound:
 * through the subquery SQLite spends about 14k instructions more on it.
 *
 * @example
 * const insert = createAuditRowInsert(database);
 * database.transaction(() => insert(rows))();
 */
export function createAuditRowInsert(database: Database.Database): AuditRowInsert {
  const statements = new Map<number, Database.Statement>();
  const statementFor = (shape: ChunkShape, rows: number): Database.Statement => {
    // One number, not a text to build and hash per insert: two masks of `columns.length` bits, 6 of rows, 1 of width.
    const key =
      ((shape.sharedNulls * maskSize + shape.shared) * 64 + rows) * 2 + (shape.width === columns.length ? 1 : 0);
    let statement = statements.get(key);
    if (statement === undefined) {
      statement = database.prepare(insertSql(shape, rows));
      if (statements.size >= cachedShapes) statements.delete(statements.keys().next().value as number);
      statements.set(key, statement);
    }
    return statement;
  };
  return (rows) => {
    for (let start = 0; start < rows.length; start += rowsPerInsert) {
      // A single chunk (a step's row, a run's rows) as it is, not copied.
      const chunk = start === 0 && rows.length <= rowsPerInsert ? rows : rows.slice(start, start + rowsPerInsert);
      const shape = chunkShape(chunk);
      // Spread, not one array: better-sqlite3 reads an array's elements one by one through V8's API
      // (`Object::Get`, about 500 instructions a value), its arguments directly.
      statementFor(shape, chunk.length).run(...boundValues(chunk, shape));
    }
  };
}

/** Which columns every row of a chunk shares (bit `i` for column `i`), and which of those are null. */
interface ChunkShape {
  /** Values per row: every column, or all but the chain's. */
  readonly width: number;
  readonly shared: number;
  readonly sharedNulls: number;
}

function chunkShape(rows: readonly AuditRowValues[]): ChunkShape {
  const first = rows[0] as AuditRowValues;
  const width = first.length === unlinkedColumnCount ? unlinkedColumnCount : columns.length;
  let shared = 0;
  let sharedNulls = 0;
  for (let column = 0; column < width; column += 1) {
    const value = first[column];
    let same = true;
    for (let row = 1; row < rows.length && same; row += 1) same = (rows[row] as AuditRowValues)[column] === value;
    if (!same) continue;
    shared |= 1 << column;
    if (value === null) sharedNulls |= 1 << column;
  }
  return { width, shared, sharedNulls };
}

const isSet = (mask: number, column: number) => ((mask >> column) & 1) === 1;

function insertSql({ width, shared, sharedNulls }: ChunkShape, rows: number): string {
  // One row (a step's): a plain VALUES row of its non-null columns, the same values bound in the same order. SQLite
  // runs `INSERT … SELECT … FROM (SELECT ? AS k0, …)` through a subquery, about 14k instructions more a row (issue 48).
  if (rows === 1) return singleRowSql({ width, sharedNulls });
  const written: string[] = [];
  const select: string[] = [];
  const sharedValues: string[] = [];
  let varying = 0;
  for (let column = 0; column < width; column += 1) {
    // A column null in every row of the chunk is left out: it is NULL by default (none of audit_log's columns
    // has another default), and a log whose schema predates a column is written without it while it is unused.
    if (isSet(sharedNulls, column)) continue;
    written.push(columns[column] as string);
    if (isSet(shared, column)) {
      select.push(`c.k${column}`);
      sharedValues.push(`? AS k${column}`);
    } else {
      varying += 1;
      select.push(`v.column${varying}`);
    }
  }
  const sources: string[] = [];
  if (sharedValues.length > 0) sources.push(`(SELECT ${sharedValues.join(', ')}) AS c`);
  if (varying > 0) {
    const row = `(${Array.from({ length: varying }, () => '?').join(', ')})`;
    sources.push(`(VALUES ${Array.from({ length: rows }, () => row).join(', ')}) AS v`);
  }
  return `INSERT INTO audit_log (${written.join(', ')}) SELECT ${select.join(', ')} FROM ${sources.join(', ')}`;
}

/** The insert of one row: its columns not null, each bound once, in column order (as `boundValues` gives them). */
function singleRowSql({ width, sharedNulls }: Pick<ChunkShape, 'width' | 'sharedNulls'>): string {
  const written: string[] = [];
  for (let column = 0; column < width; column += 1) {
    if (!isSet(sharedNulls, column)) written.push(columns[column] as string);
  }
  return `INSERT INTO audit_log (${written.join(', ')}) VALUES (${written.map(() => '?').join(', ')})`;
}

/** The values to bind, in the order of the statement's placeholders: the shared ones, then each row's own. */
function boundValues(rows: readonly AuditRowValues[], { width, shared, sharedNulls }: ChunkShape): AuditRowValues {
  const first = rows[0] as AuditRowValues;
  const values: AuditRowValues = [];
  const varying: number[] = [];
  for (let column = 0; column < width; column += 1) {
    if (!isSet(shared, column)) varying.push(column);
    else if (!isSet(sharedNulls, column)) values.push(first[column] as string | number);
  }
  if (varying.length === 0) return values;
  for (const row of rows) for (const column of varying) values.push(row[column] as string | number | null);
  return values;
}
