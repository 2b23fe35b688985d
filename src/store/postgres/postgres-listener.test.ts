import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresBackend } from './open-postgres-backend.js';
import { PostgresDatabase } from './postgres-database.js';
import { PostgresListener } from './postgres-listener.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(cluster.skip)('PostgresListener', () => {
  const toClose: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of toClose.splice(0).reverse()) await close();
  });

  async function database(): Promise<PostgresDatabase> {
    const schema = cluster.freshSchema();
    await (await openPostgresBackend({ connectionString: cluster.connectionString, schema })).close();
    const opened = PostgresDatabase.open({ connectionString: cluster.connectionString, schema });
    toClose.push(() => opened.close());
    return opened;
  }

  it('gives up a live connection whose LISTEN failed: the replacement listens on the channel and says so', async () => {
    const listening = await database();
    // The server itself refuses the first `LISTEN arbiter_b` on the live connection: sent with a failing
    // statement in the same implicit transaction, the LISTEN is rolled back and the connection stays open.
    let failed = 0;
    const connect = listening.connect.bind(listening);
    listening.connect = async () => {
      const client = await connect();
      const query = client.query.bind(client) as (text: string) => Promise<pg.QueryResult>;
      (client as unknown as { query: (text: string) => Promise<pg.QueryResult> }).query = (text: string) => {
        if (text !== 'LISTEN arbiter_b' || failed > 0) return query(text);
        failed += 1;
        return query(`${text}; SELECT 1 / 0`);
      };
      return client;
    };
    const heard: string[] = [];
    let reconnected = 0;
    const errors: unknown[] = [];
    const listener = await PostgresListener.open({
      database: listening,
      channel: 'arbiter_a',
      onNotification: (payload, _sender, channel) => heard.push(`${channel} ${payload}`),
      onReconnected: () => {
        reconnected += 1;
      },
      onError: (error) => errors.push(error),
    });
    toClose.push(() => listener.close());
    await listener.listen('arbiter_b');
    expect(failed).toBe(1);

    const sending = await database();
    const notify = async (channel: string, payload: string) => {
      await sending.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    };
    await until(() => reconnected === 1 && listener.listening, 'the replacement connection');
    expect(String(errors[0])).toContain('division by zero');
    await notify('arbiter_b', 'after');
    await notify('arbiter_a', 'still');
    await until(() => heard.length === 2, 'both notifications');
    expect(heard).toEqual(['arbiter_b after', 'arbiter_a still']);
  });

  it('refuses a channel name it would have to quote, before anything is sent', async () => {
    const listener = await PostgresListener.open({ database: await database(), onNotification: () => {} });
    toClose.push(() => listener.close());
    await expect(listener.listen('a; DROP TABLE runs')).rejects.toThrow(/not a plain channel name/);
    await expect(listener.listen('Arbiter')).rejects.toThrow(/not a plain channel name/);
  });
});
