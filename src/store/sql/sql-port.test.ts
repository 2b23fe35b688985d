import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresDatabase } from '../postgres/postgres-database.js';
import { setUpPostgresCluster } from '../postgres/test-support/postgres-cluster.js';
import { openSqliteBackend } from '../sqlite/open-sqlite-backend.js';
import { preparedStatements } from '../sqlite/prepared-statements.js';
import { bindPositional } from './bind-positional.js';
import { PostgresPort } from './postgres-port.js';
import type { SqlMode, SqlPort } from './sql-port.js';
import {
  dialect,
  isSqlProgram,
  rows,
  run,
  type SqlProgram,
  type SqlValue,
  sql,
  sqlOf,
  transaction,
  wait,
} from './sql-program.js';
import { SqlitePort } from './sqlite-port.js';

const cluster = setUpPostgresCluster();

const createTable = sqlOf({
  sqlite: 'CREATE TABLE IF NOT EXISTS port_test (id TEXT PRIMARY KEY, n INTEGER NOT NULL)',
  postgres: 'CREATE TABLE IF NOT EXISTS port_test (id TEXT PRIMARY KEY, n BIGINT NOT NULL)',
});
const insert = sql('INSERT INTO port_test (id, n) VALUES ($1, $2)');
const bump = sql('UPDATE port_test SET n = n + $2 WHERE id = $1 OR id = $1');
const readAll = sql('SELECT id, n FROM port_test ORDER BY id');

function* setUp(): SqlProgram<void> {
  yield* run(createTable);
  yield* run(insert, ['a', 1]);
}

function* bumpTwiceThenFail(): SqlProgram<void> {
  yield* transaction(function* () {
    yield* run(bump, ['a', 10]);
    yield* transaction(function* () {
      yield* run(bump, ['a', 100]);
    });
    throw new Error('changed my mind');
  });
}

function* bumpInTransaction(): SqlProgram<{ changed: number; rows: { id: string; n: number }[] }> {
  return yield* transaction(function* () {
    const changed = yield* run(bump, ['a', 5]);
    return { changed, rows: yield* rows<{ id: string; n: number }>(readAll) };
  });
}

const ports: {
  name: string;
  skip: boolean;
  open: () => Promise<{ port: SqlPort<SqlMode>; close: () => Promise<void> }>;
}[] = [
  {
    name: 'SQLite',
    skip: false,
    open: async () => {
      const backend = openSqliteBackend({ path: ':memory:' });
      return { port: new SqlitePort(backend.database), close: async () => backend.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: cluster.skip,
    open: async () => {
      const database = PostgresDatabase.open({
        connectionString: cluster.connectionString,
        schema: cluster.freshSchema(),
      });
      await database.query(`CREATE SCHEMA IF NOT EXISTS ${database.schema}`);
      return { port: new PostgresPort(database), close: () => database.close() };
    },
  },
];

describe.each(ports)('the dialect port on $name', ({ skip, open }) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
  });

  it.skipIf(skip)('runs one program on either dialect: rows, writes, transactions rolled back as a whole', async () => {
    const opened = await open();
    close = opened.close;
    const { port } = opened;
    await port.run(setUp());
    await expect(Promise.resolve().then(() => port.run(bumpTwiceThenFail()))).rejects.toThrow('changed my mind');
    // Neither the outer write nor the nested one stayed.
    expect(await port.run(bumpInTransaction())).toEqual({ changed: 1, rows: [{ id: 'a', n: 6 }] });
    expect(await port.run(dialect())).toBe(port.dialect);
  });

  it.skipIf(skip)('runs one statement as a plain call: rows and execute, as a program of one step would', async () => {
    const opened = await open();
    close = opened.close;
    const { port } = opened;
    await port.run(setUp());
    expect(await port.execute(bump, ['a', 2])).toBe(1);
    expect(await port.execute(bump, ['nobody', 2])).toBe(0);
    expect(await port.rows<{ id: string; n: number }>(readAll)).toEqual([{ id: 'a', n: 3 }]);
    expect(await port.rows(readAll)).toEqual(await port.run(rows(readAll)));
  });

  it.skipIf(skip)('hands a program the value a callback answered, inside its transaction', async () => {
    const opened = await open();
    close = opened.close;
    const { port } = opened;
    await port.run(setUp());
    const answered = await port.run(
      transaction(function* () {
        const [row] = yield* rows<{ n: number }>(readAll);
        return yield* wait((row?.n ?? 0) + 41);
      }),
    );
    expect(answered).toBe(42);
  });
});

describe('the PostgreSQL port', () => {
  it.skipIf(cluster.skip)('waits for a promise a program hands it before the program goes on', async () => {
    const database = PostgresDatabase.open({
      connectionString: cluster.connectionString,
      schema: cluster.freshSchema(),
    });
    try {
      const port = new PostgresPort(database);
      const later = new Promise<string>((resolve) => setTimeout(() => resolve('written'), 20));
      expect(await port.run(wait(later))).toBe('written');
    } finally {
      await database.close();
    }
  });
});

describe('the SQLite port', () => {
  it('answers synchronously: a program is run to its end before run returns', () => {
    const backend = openSqliteBackend({ path: ':memory:' });
    try {
      const port = new SqlitePort(backend.database);
      port.run(setUp());
      const answer = port.run(bumpInTransaction());
      expect(answer).not.toBeInstanceOf(Promise);
      expect(answer.rows).toEqual([{ id: 'a', n: 6 }]);
    } finally {
      backend.close();
    }
  });

  it('binds values given in order as they are, booleans as 0 and 1, and $n out of order or repeated by position', () => {
    const backend = openSqliteBackend({ path: ':memory:' });
    try {
      const port = new SqlitePort(backend.database);
      const echo = sql('SELECT $1 AS a, $2 AS b');
      const swapped = sql('SELECT $2 AS a, $1 AS b, $2 AS c');
      expect(port.rows(echo, ['x', true])).toEqual([{ a: 'x', b: 1 }]);
      expect(port.rows(swapped, [false, 'y'])).toEqual([{ a: 'y', b: 0, c: 'y' }]);
      // A value beyond the statement's last $n is left out, as a remapped binding always did.
      expect(port.rows(echo, ['x', 'y', 'z'])).toEqual([{ a: 'x', b: 'y' }]);
      expect(() => port.rows(sql('SELECT $3'), ['a'])).toThrow('binds $3, and 1 values were given');
      const values = ['p', 'q'] as const;
      port.rows(echo, values);
      expect(values).toEqual(['p', 'q']);
    } finally {
      backend.close();
    }
  });

  it('binds an array or an object as one value, which SQLite refuses, never as several values or named ones', () => {
    const backend = openSqliteBackend({ path: ':memory:' });
    try {
      const port = new SqlitePort(backend.database);
      port.run(setUp());
      const three = sql('SELECT $1 AS a, $2 AS b, $3 AS c');
      const refused = 'SQLite3 can only bind numbers, strings, bigints, buffers, and null';
      // As arguments, the array would bind 'x' and 'y' in $1's place; the object, its key as a named parameter.
      expect(() => port.rows(three, [['x', 'y'], 1, 2])).toThrow(refused);
      // An object is no `SqlValue`, but a value read from JSON may be one all the same.
      expect(() => port.rows(three, [{ a: 1 } as unknown as SqlValue, 1, 2])).toThrow(refused);
      expect(() => port.execute(bump, [['a', 'b'], 1])).toThrow(refused);
      expect(port.run(rows(readAll))).toEqual([{ id: 'a', n: 1 }]);
      // Bytes are one value either way, a blob.
      expect(port.rows(three, [Buffer.from([1]), new Uint8Array([2]), 3])).toEqual([
        { a: Buffer.from([1]), b: Buffer.from([2]), c: 3 },
      ]);
    } finally {
      backend.close();
    }
  });

  it('builds its transaction once: a program of transactions asks better-sqlite3 for no new wrapper', () => {
    const backend = openSqliteBackend({ path: ':memory:' });
    try {
      const port = new SqlitePort(backend.database);
      port.run(setUp());
      const transaction = vi.spyOn(backend.database, 'transaction');
      for (let index = 0; index < 3; index += 1) port.run(bumpInTransaction());
      expect(transaction).not.toHaveBeenCalled();
    } finally {
      backend.close();
    }
  });

  it("reads rows as better-sqlite3's own objects: every column by name, in order, a repeated name's last value", () => {
    const backend = openSqliteBackend({ path: ':memory:' });
    try {
      const { database } = backend;
      const columns = Array.from({ length: 30 }, (_, index) => `c${index}`);
      database.exec(`CREATE TABLE wide (${columns.map((column) => `${column} ANY`).join(', ')}) STRICT`);
      const values = [1, 2.5, 'text', null, Buffer.from([1, 2]), -0, 2 ** 53, "it's", '', 0.1 + 0.2];
      const insertWide = database.prepare(`INSERT INTO wide VALUES (${columns.map(() => '?').join(', ')})`);
      for (let row = 0; row < 3; row += 1) insertWide.run(columns.map((_, index) => values[(index + row) % 10]));
      const port = new SqlitePort(database);
      const texts = [
        `SELECT ${columns.join(', ')} FROM wide ORDER BY rowid`,
        'SELECT c0 AS same, c1 AS other, c2 AS same FROM wide ORDER BY rowid',
        'SELECT * FROM wide WHERE c0 = $1',
        'SELECT c1 FROM wide ORDER BY rowid',
        // A column's name is never code: quotes, braces, a backslash and a line separator stay in the key.
        `SELECT c0 AS "x""}); throw new Error('ran'); ({""", c1 AS "back\\slash \u2028 line" FROM wide`,
      ];
      for (const text of texts) {
        const read = port.rows<Record<string, unknown>>(sql(text), [1]);
        const own = database.prepare(text.replace('$1', '?'));
        const expected = (own.reader && own.source.includes('?') ? own.all(1) : own.all()) as Record<string, unknown>[];
        expect(read).toStrictEqual(expected);
        expect(read.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row)));
      }
      // A column named __proto__ is an own key of the row, never its prototype.
      const [proto] = port.rows<Record<string, unknown>>(sql('SELECT c4 AS "__proto__", c1 FROM wide ORDER BY rowid'));
      expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
      expect(Object.keys(proto ?? {})).toEqual(['__proto__', 'c1']);
      expect(port.rows(sql('SELECT * FROM wide WHERE c0 = $1'), ['none'])).toEqual([]);
      // The connection's shared statement of the same text still answers objects to every other adapter.
      expect(preparedStatements(database)(`SELECT ${columns.join(', ')} FROM wide ORDER BY rowid`).get()).toEqual(
        port.rows(sql(`SELECT ${columns.join(', ')} FROM wide ORDER BY rowid`))[0],
      );
      // A statement SQLite prepares again after the schema changed answers its new columns.
      database.exec('ALTER TABLE wide ADD COLUMN added ANY');
      expect(
        Object.keys(port.rows<Record<string, unknown>>(sql('SELECT * FROM wide WHERE c0 = $1'), [1])[0] ?? {}),
      ).toEqual([...columns, 'added']);
      expect(() => port.rows(sql('UPDATE wide SET c0 = 1'))).toThrow('does not return data');
    } finally {
      backend.close();
    }
  });

  it('prepares a statement it reads once per connection, whichever of its ports reads it', () => {
    const backend = openSqliteBackend({ path: ':memory:' });
    try {
      const prepare = vi.spyOn(backend.database, 'prepare');
      const statement = sql('SELECT $1 AS shared_read');
      for (let index = 0; index < 3; index += 1) {
        expect(new SqlitePort(backend.database).rows(statement, [index])).toEqual([{ shared_read: index }]);
      }
      expect(prepare.mock.calls.filter(([source]) => source === 'SELECT ? AS shared_read')).toHaveLength(1);
    } finally {
      backend.close();
    }
  });

  it('refuses to wait for a promise, which it could not do synchronously', () => {
    const backend = openSqliteBackend({ path: ':memory:' });
    try {
      const port = new SqlitePort(backend.database);
      expect(() => port.run(wait(Promise.resolve(1)))).toThrow('cannot wait for a promise');
    } finally {
      backend.close();
    }
  });
});

describe('a program of one step', () => {
  it('is one object: the step, its iterator and its results, recognised as a program and run by either port', () => {
    const program = run(bump, ['a', 1]);
    expect(isSqlProgram(program)).toBe(true);
    expect(isSqlProgram(rows(readAll))).toBe(true);
    const first = program.next();
    expect(first.done).toBe(false);
    expect(first.value).toMatchObject({ kind: 'run', statement: bump, values: ['a', 1] });
    expect(program.next(1)).toMatchObject({ done: true, value: 1 });
    const backend = openSqliteBackend({ path: ':memory:' });
    try {
      const port = new SqlitePort(backend.database);
      port.run(setUp());
      expect(port.run(run(bump, ['a', 1]))).toBe(1);
      expect(port.run(transaction(() => run(bump, ['a', 1])))).toBe(1);
      expect(port.rows(readAll)).toEqual([{ id: 'a', n: 3 }]);
    } finally {
      backend.close();
    }
  });
});

describe('bindPositional', () => {
  it('binds $n as SQLite wants, in the order the placeholders appear, and leaves quoted dollars alone', () => {
    expect(bindPositional("SELECT '$1' AS s WHERE a = $2 OR b = $1 OR c = $2", ['x', 'y'])).toEqual({
      text: "SELECT '$1' AS s WHERE a = ? OR b = ? OR c = ?",
      values: ['y', 'x', 'y'],
    });
  });

  it('names the placeholder that has no value', () => {
    expect(() => bindPositional('SELECT $3', ['a'])).toThrow('binds $3, and 1 values were given');
  });
});
