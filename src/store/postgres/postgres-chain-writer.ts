import { randomUUID } from 'node:crypto';
import { auditChainKey } from '../../gate/audit-chain.js';
import type { AuditEntry } from '../../gate/audit-log.js';
import { auditGenesisHead } from '../../gate/audit-origin-seal.js';
import type { AuditChainHead } from '../../gate/audit-record-hash.js';
import { readAuditOrigin, toAuditOriginRecord } from '../audit/audit-origin.js';
import { insertLinkedRowsStatement } from '../audit/audit-statements.js';
import type { AuditWrites } from '../audit/audit-writes.js';
import { type AuditRowValues, auditColumnIndex, linkAuditRowValues, toAuditRowValues } from '../audit-rows.js';
import { PostgresPort } from '../sql/postgres-port.js';
import { run, transaction } from '../sql/sql-program.js';
import { type NamedStatement, namedStatement } from './named-statement.js';
import type { PostgresDatabase } from './postgres-database.js';

/** Rows one INSERT writes at most: 64 × 23 values, far below PostgreSQL's 65,535 parameters. */
const rowsPerInsert = 64;
/** Chains a writer keeps of one tenant at most, each with its INSERT in flight beside the others'. */
const defaultChainsPerTenant = 4;

/**
 * The INSERT of `rows` linked rows, one statement shape per count.
 *
 * @example
 * await database.query(insertLinkedRows(linked.length), linked.flat());
 */
export function insertLinkedRows(rows: number): NamedStatement {
  return namedStatement(insertLinkedRowsStatement(rows).postgres);
}

/** One tenant's chain on this writer: its head, and what waits to be written onto it, in order. */
interface Lane {
  writer: string;
  head: AuditChainHead | null;
  readonly waiting: Waiting[];
  running: boolean;
}

type Waiting =
  | { readonly kind: 'row'; readonly values: AuditRowValues; settle: (error?: unknown) => void }
  | { readonly kind: 'work'; readonly run: (lane: Lane) => Promise<void> };

/**
 * The chains one `PostgresAuditLog` writes: a few per tenant (up to
 * `chainsPerTenant`), each under a writer id of its own (random), so no
 * other node ever writes them and an append needs no lock and no read, only
 * its INSERT. An append goes to a chain of its tenant with no INSERT in
 * flight, or a new one, or else the one with the fewest rows waiting; rows
 * that arrive while a chain's INSERT is in flight go together in its next
 * one (a chain is a sequence). Appends of other tenants, and of the same
 * tenant on other nodes, go on beside them. An
 * INSERT that fails (its outcome possibly unknown) ends the lane's chain:
 * the next row starts a new chain under a new writer id, so a row that did
 * commit is never followed by a second row in its place. Every chain starts
 * from the store's origin seal (`auditGenesisHead`), read once per writer
 * before its first INSERT.
 *
 * @example
 * const chains = new PostgresChainWriter({ database });
 * await chains.append(toAuditRowValues(entry));
 */
export class PostgresChainWriter {
  readonly #database: PostgresDatabase;
  readonly #lanes = new Map<string, Lane[]>();
  readonly #newWriter: () => string;
  readonly #chainsPerTenant: number;
  /** Where a new chain starts (the origin seal), once read. */
  #genesis: Promise<AuditChainHead | null> | undefined;

  constructor({
    database,
    newWriter = randomUUID,
    chainsPerTenant = defaultChainsPerTenant,
  }: {
    database: PostgresDatabase;
    newWriter?: () => string;
    /** Chains of one tenant this writer keeps at most. Default 4. */
    chainsPerTenant?: number;
  }) {
    this.#database = database;
    this.#newWriter = newWriter;
    this.#chainsPerTenant = Math.max(1, chainsPerTenant);
  }

  /** The head a lane's chain continues from: its own, or for a new chain the origin seal. */
  async #startOf(lane: Lane): Promise<AuditChainHead | null> {
    if (lane.head !== null) return lane.head;
    this.#genesis ??= Promise.resolve(readAuditOrigin(new PostgresPort(this.#database))).then(
      (stored) => auditGenesisHead(toAuditOriginRecord(stored)),
      (error: unknown) => {
        this.#genesis = undefined;
        throw error;
      },
    );
    return this.#genesis;
  }

  /** Writes one row onto its tenant's chain; settles once it is committed (alone or with the rows beside it). */
  append(values: AuditRowValues): Promise<void> {
    const lane = this.#lane(auditChainKey(values[auditColumnIndex.tenant] as string | null));
    return new Promise<void>((resolve, reject) => {
      lane.waiting.push({ kind: 'row', values, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      this.#drain(lane);
    });
  }

  /**
   * Runs `work` with `tenant`'s chain to itself: `link` links rows onto the
   * chain's head as last committed (once per transaction `work` runs, which
   * inserts them), and the head moves only when `work` succeeds. A failure
   * ends the chain, as a failed INSERT does.
   */
  withChain<Result>(
    tenant: string,
    work: (link: (rows: readonly AuditRowValues[]) => AuditRowValues[]) => Promise<Result>,
  ): Promise<Result> {
    const lane = this.#lane(tenant);
    return new Promise<Result>((resolve, reject) => {
      lane.waiting.push({
        kind: 'work',
        run: async (current) => {
          let head = current.head;
          try {
            const start = await this.#startOf(current);
            const result = await work((rows) => {
              const linked = linkAuditRowValues({
                rows,
                writer: current.writer,
                heads: new Map([[tenant, start]]),
                headOf: () => start,
              });
              head = linked.heads.get(tenant) ?? null;
              return linked.rows;
            });
            current.head = head;
            resolve(result);
          } catch (error) {
            this.#restart(current);
            reject(error);
          }
        },
      });
      this.#drain(lane);
    });
  }

  #lane(tenant: string): Lane {
    let lanes = this.#lanes.get(tenant);
    if (lanes === undefined) {
      lanes = [];
      this.#lanes.set(tenant, lanes);
    }
    const idle = lanes.find((lane) => !lane.running);
    if (idle !== undefined) return idle;
    if (lanes.length < this.#chainsPerTenant) {
      const lane: Lane = { writer: this.#newWriter(), head: null, waiting: [], running: false };
      lanes.push(lane);
      return lane;
    }
    return lanes.reduce((shortest, lane) => (lane.waiting.length < shortest.waiting.length ? lane : shortest));
  }

  #restart(lane: Lane): void {
    lane.writer = this.#newWriter();
    lane.head = null;
  }

  #drain(lane: Lane): void {
    if (lane.running) return;
    lane.running = true;
    void (async () => {
      while (lane.waiting.length > 0) {
        const first = lane.waiting[0] as Waiting;
        if (first.kind === 'work') {
          lane.waiting.shift();
          await first.run(lane);
          continue;
        }
        let count = 1;
        while (count < rowsPerInsert && lane.waiting[count]?.kind === 'row') count += 1;
        const batch = lane.waiting.splice(0, count) as Extract<Waiting, { kind: 'row' }>[];
        try {
          const start = await this.#startOf(lane);
          const tenantHeads = new Map([
            [auditChainKey(batch[0]?.values[auditColumnIndex.tenant] as string | null), start],
          ]);
          const linked = linkAuditRowValues({
            rows: batch.map((row) => row.values),
            writer: lane.writer,
            heads: tenantHeads,
            headOf: () => start,
          });
          await this.#database.query(insertLinkedRows(batch.length), linked.rows.flat());
          lane.head = [...linked.heads.values()][0] ?? null;
          for (const row of batch) row.settle();
        } catch (error) {
          this.#restart(lane);
          for (const row of batch) row.settle(error);
        }
      }
      lane.running = false;
    })();
  }
}

/**
 * How PostgreSQL's audit log writes its rows (`AuditWrites` of
 * `SqlAuditStore`): appends go onto this process's own chains
 * (`PostgresChainWriter`), with no lock and no read, so appends of one
 * tenant on different nodes never wait for each other; a purge runs in a
 * transaction on the port with the chain of calls without a tenant to
 * itself, and writes its row onto it.
 *
 * @example
 * const audit = new SqlAuditStore({ port: new PostgresPort(database), writes: postgresAuditWrites({ database }) });
 */
export function postgresAuditWrites({
  database,
  port = new PostgresPort(database),
  chains = new PostgresChainWriter({ database }),
}: {
  database: PostgresDatabase;
  /** The port a purge's program runs on; default one of its own on `database`. */
  port?: PostgresPort;
  chains?: PostgresChainWriter;
}): AuditWrites<'async'> {
  return {
    append: (entry: AuditEntry) => chains.append(toAuditRowValues(entry)),
    beforeRead: () => {},
    inTransaction: (tenant, program) =>
      chains.withChain(tenant, (link) =>
        port.run(
          transaction(() =>
            program(function* (rows) {
              const linked = link(rows);
              yield* run(insertLinkedRowsStatement(linked.length), linked.flat());
            }),
          ),
        ),
      ),
  };
}
