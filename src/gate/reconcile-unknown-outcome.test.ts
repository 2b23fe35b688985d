import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openPostgresBackend } from '../store/postgres/open-postgres-backend.js';
import { setUpPostgresCluster } from '../store/postgres/test-support/postgres-cluster.js';
import { openSqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import type { ReconcileAnswer } from '../tools/tool-types.js';
import { claimIdempotencyKey } from './claim-idempotency-key.js';
import type { IdempotencyStore } from './idempotency-store.js';
import { gatedCallFixture } from './test-support/gated-call-fixture.js';

// Two "nodes" on one database: two connections (SQLite) or two pools (PostgreSQL), each with its own store.
interface Nodes {
  readonly first: IdempotencyStore;
  readonly second: IdempotencyStore;
  readonly close: () => Promise<void>;
  /** Rewrites the claims' owner, as another machine's claim reads. */
  readonly setOwner: (owner: string) => Promise<void>;
  /** Rewrites when the claims were last renewed: `silentMs` before the database's clock, with `leaseMs`. */
  readonly setRenewal: (silentMs: number, leaseMs: number) => Promise<void>;
  /** Rewrites the claims as written before renewals: none, claimed `ageMs` before the database's clock. */
  readonly setUnrenewed: (ageMs: number) => Promise<void>;
}

const sqliteNow = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";
const postgresNow = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

const cluster = setUpPostgresCluster();
const directory = mkdtempSync(join(tmpdir(), 'arbiter-reconcile-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

const backends: { name: string; skip: boolean; open: () => Promise<Nodes> }[] = [
  {
    name: 'SQLite',
    skip: false,
    open: async () => {
      files += 1;
      const path = join(directory, `arbiter-${files}.db`);
      const [first, second] = [openSqliteBackend({ path }), openSqliteBackend({ path })];
      return {
        first: first.idempotency,
        second: second.idempotency,
        setOwner: async (owner) => void first.database.prepare('UPDATE idempotency_claims SET owner = ?').run(owner),
        setRenewal: async (silentMs, leaseMs) =>
          void first.database
            .prepare(`UPDATE idempotency_claims SET renewed_at = ${sqliteNow} - ?, lease_ms = ?`)
            .run(silentMs, leaseMs),
        setUnrenewed: async (ageMs) =>
          void first.database
            .prepare(`UPDATE idempotency_claims SET renewed_at = NULL, lease_ms = NULL, claimed_at = ${sqliteNow} - ?`)
            .run(ageMs),
        close: async () => {
          await first.close();
          await second.close();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    skip: cluster.skip,
    open: async () => {
      const schema = cluster.freshSchema();
      const [first, second] = await Promise.all(
        [1, 2].map(() => openPostgresBackend({ connectionString: cluster.connectionString, schema })),
      );
      if (first === undefined || second === undefined) throw new Error('no backend');
      return {
        first: first.idempotency,
        second: second.idempotency,
        setOwner: async (owner) => void (await first.pool.query('UPDATE idempotency_claims SET owner = $1', [owner])),
        setRenewal: async (silentMs, leaseMs) =>
          void (await first.pool.query(
            `UPDATE idempotency_claims SET renewed_at = ${postgresNow} - $1, lease_ms = $2`,
            [silentMs, leaseMs],
          )),
        setUnrenewed: async (ageMs) =>
          void (await first.pool.query(
            `UPDATE idempotency_claims SET renewed_at = NULL, lease_ms = NULL, claimed_at = ${postgresNow} - $1`,
            [ageMs],
          )),
        close: async () => {
          await first.close();
          await second.close();
        },
      };
    },
  },
];

const refund = { refund_no: 'RF2026090003', amount_cents: 2000 };

/** A call of the fixture refund tool whose `reconcile` answers `answer` (and counts how often it was asked). */
function refundCall(store: IdempotencyStore, answer: () => ReconcileAnswer | Promise<ReconcileAnswer>) {
  const asked: string[] = [];
  const fixture = gatedCallFixture({
    runtime: { idempotency: store },
    tool: {
      idempotencyKey: (args) => `refund:${String(args.order_id)}:${String(args.amount_cents)}`,
      reconcile: (_args, key) => {
        asked.push(key);
        return answer();
      },
    },
  });
  return { ...fixture, asked };
}

/** Leaves the refund's key claimed with no outcome, as a process that died mid-call does. */
async function interrupt(store: IdempotencyStore): Promise<void> {
  const claim = await claimIdempotencyKey(refundCall(store, () => ({ status: 'unknown' })).runtime, {
    ...refundCall(store, () => ({ status: 'unknown' })).call,
    toolCallId: 'call_0',
  });
  if (claim?.status !== 'claimed') throw new Error(`expected a fresh claim, got ${claim?.status}`);
  await claim.abandon();
}

describe.each(backends)('reconciling an unknown outcome on $name', ({ skip, open }) => {
  let nodes: Nodes | undefined;
  afterEach(async () => {
    await nodes?.close();
    nodes = undefined;
  });

  it.skipIf(skip)('completes the claim from the outside system when the effect happened', async () => {
    nodes = await open();
    await interrupt(nodes.first);
    const retry = refundCall(nodes.second, () => ({ status: 'happened', result: refund }));
    const claim = await claimIdempotencyKey(retry.runtime, retry.call);
    expect(claim).toMatchObject({ status: 'completed', outcome: { ok: true, data: refund } });
    expect(retry.asked).toEqual(['refund:SO20260901:2000']);
    expect(retry.audited).toMatchObject([{ outcome: 'reconciled:ok', replayOf: { toolCallId: 'call_0' } }]);
    // Recorded: the next claim replays it without asking the outside system again.
    const later = refundCall(nodes.first, () => ({ status: 'not_happened' }));
    expect(await claimIdempotencyKey(later.runtime, later.call)).toMatchObject({
      status: 'completed',
      outcome: { ok: true, data: refund },
    });
    expect(later.asked).toEqual([]);
    expect(later.audited).toMatchObject([{ outcome: 'replayed:ok' }]);
  });

  it.skipIf(skip)('lets the call run once when the effect did not happen', async () => {
    nodes = await open();
    await interrupt(nodes.first);
    const retry = refundCall(nodes.second, () => ({ status: 'not_happened' }));
    const claim = await claimIdempotencyKey(retry.runtime, retry.call);
    if (claim?.status !== 'claimed') throw new Error(`expected the key re-taken, got ${claim?.status}`);
    await claim.complete({ ok: true, data: refund });
    const later = refundCall(nodes.first, () => ({ status: 'not_happened' }));
    expect(await claimIdempotencyKey(later.runtime, later.call)).toMatchObject({
      status: 'completed',
      outcome: { data: refund },
    });
    expect(later.asked).toEqual([]);
  });

  it.skipIf(skip)('lets only one of two racing reconcilers run the call', async () => {
    nodes = await open();
    for (let round = 0; round < 10; round += 1) {
      await nodes.close();
      nodes = await open();
      await interrupt(nodes.first);
      const { first, second } = nodes;
      const racers = [first, second, first, second].map((store) =>
        refundCall(store, async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return { status: 'not_happened' };
        }),
      );
      // The winner runs the call and records its result as soon as it holds the key.
      const claims = await Promise.all(
        racers.map(async ({ runtime, call }) => {
          const claim = await claimIdempotencyKey(runtime, call);
          if (claim?.status === 'claimed') await claim.complete({ ok: true, data: refund });
          return claim;
        }),
      );
      expect(claims.filter((claim) => claim?.status === 'claimed')).toHaveLength(1);
      // The losers read the winner's live claim (another node: unknown, refused) or wait for its result (same node).
      for (const claim of claims) expect(['claimed', 'refused', 'completed']).toContain(claim?.status);
    }
  });

  it.skipIf(skip)(
    'never re-takes a key a call of another connection is executing: the duplicate waits for it',
    async () => {
      nodes = await open();
      const running = refundCall(nodes.first, () => ({ status: 'not_happened' }));
      const first = await claimIdempotencyKey(running.runtime, running.call);
      if (first?.status !== 'claimed') throw new Error(`expected a fresh claim, got ${first?.status}`);
      // Another run presents the same key through the other connection while the refund is in flight.
      const duplicate = refundCall(nodes.second, () => ({ status: 'not_happened' }));
      const waiting = claimIdempotencyKey(duplicate.runtime, { ...duplicate.call, toolCallId: 'call_9' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await first.complete({ ok: true, data: refund });
      expect(await waiting).toMatchObject({ status: 'completed', outcome: { data: refund } });
      expect(duplicate.asked).toEqual([]);
    },
  );

  it.skipIf(skip)(
    'does not ask reconcile about a claim its owner renews, whatever machine it names, until it falls silent',
    async () => {
      nodes = await open();
      await interrupt(nodes.first);
      await nodes.setOwner('elsewhere/boot:4242:0123456789abcdef');
      // Its owner renews it every 50 ms within a lease of a second: read again for that long, still live, refused unasked.
      const renewing = nodes;
      await renewing.setRenewal(0, 1_000);
      const renewer = setInterval(() => void renewing.setRenewal(0, 1_000), 50);
      const early = refundCall(nodes.second, () => ({ status: 'not_happened' }));
      try {
        expect(await claimIdempotencyKey(early.runtime, early.call)).toMatchObject({
          status: 'refused',
          error: { code: 'outcome_unknown' },
        });
      } finally {
        clearInterval(renewer);
      }
      expect(early.asked).toEqual([]);
      // Silent longer than the lease its owner wrote, on the database's clock: nobody can still be running it.
      await nodes.setRenewal(1_001, 1_000);
      const late = refundCall(nodes.second, () => ({ status: 'not_happened' }));
      expect(await claimIdempotencyKey(late.runtime, late.call)).toMatchObject({ status: 'claimed' });
      expect(late.asked).toEqual(['refund:SO20260901:2000']);
    },
  );

  it.skipIf(skip)('judges a claim written before renewals by its age on the database clock', async () => {
    nodes = await open();
    await interrupt(nodes.first);
    await nodes.setOwner('elsewhere/boot:4242:0123456789abcdef');
    await nodes.setUnrenewed(1_000);
    const early = refundCall(nodes.second, () => ({ status: 'not_happened' }));
    expect(await claimIdempotencyKey(early.runtime, early.call)).toMatchObject({ status: 'refused' });
    expect(early.asked).toEqual([]);
    await nodes.setUnrenewed(11 * 60 * 1000);
    const late = refundCall(nodes.second, () => ({ status: 'not_happened' }));
    expect(await claimIdempotencyKey(late.runtime, late.call)).toMatchObject({ status: 'claimed' });
    expect(late.asked).toEqual(['refund:SO20260901:2000']);
  });

  it.skipIf(skip)('refuses as before when the outside system cannot tell, or reconcile throws', async () => {
    nodes = await open();
    await interrupt(nodes.first);
    for (const answer of [
      (): ReconcileAnswer => ({ status: 'unknown' }),
      (): ReconcileAnswer => {
        throw new Error('refund service down');
      },
    ]) {
      const retry = refundCall(nodes.second, answer);
      expect(await claimIdempotencyKey(retry.runtime, retry.call)).toMatchObject({
        status: 'refused',
        error: { code: 'outcome_unknown' },
      });
      expect(retry.asked).toHaveLength(1);
      expect(retry.audited).toMatchObject([{ outcome: 'outcome_unknown' }]);
    }
    // Still unknown: a later answer can settle it.
    const later = refundCall(nodes.first, () => ({ status: 'happened', result: refund }));
    expect(await claimIdempotencyKey(later.runtime, later.call)).toMatchObject({ status: 'completed' });
  });
});
