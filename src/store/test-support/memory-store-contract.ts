import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FactSource, MemoryStore, SaveFactRequest } from '../../core/memory-store.js';
import { MemoryFactError } from '../../errors/memory-fact-error.js';
import { memoryScopeTerm } from '../memory-scope.js';
import { type CreateBackend, openFreshBackends } from './contract-backend.js';

const shopper = { tenantId: 'shop', userId: 'C1001' };
const fromUser: FactSource = { kind: 'user', runId: 'run-1', callId: 'call_1' };
const day = 24 * 60 * 60 * 1000;

function fact(overrides: Partial<SaveFactRequest> = {}): SaveFactRequest {
  return { ...shopper, key: 'city', value: '上海', source: fromUser, trusted: true, ...overrides };
}

/**
 * The behaviour every `MemoryStore` must have: recall never crosses a
 * tenant or a user (a property over random owners, keys and queries); a new
 * value of a key supersedes the old one, both kept, only the current one
 * recalled; expired facts are never recalled and a purge deletes them; an
 * undone save brings the previous value back; forgetting deletes every
 * version; lexical recall ranks and finds Chinese text; bad facts are
 * refused with nothing stored.
 *
 * @example
 * describeMemoryStoreContract('SqliteMemoryStore', (options) => openSqliteBackend({ path: ':memory:', ...options }));
 */
export function describeMemoryStoreContract(
  name: string,
  createBackend: CreateBackend<{ readonly memory: MemoryStore }>,
): void {
  describe(`${name} (MemoryStore contract)`, () => {
    const open = openFreshBackends(createBackend);

    it('saves a fact with its provenance and recalls it by key and by text', async () => {
      const { backend, clock } = await open();
      const { fact: saved, superseded } = await backend.memory.save(fact({ expiresAt: clock.now + day }));
      expect(superseded).toBeUndefined();
      expect(saved).toMatchObject({
        ...shopper,
        key: 'city',
        value: '上海',
        source: fromUser,
        trusted: true,
        sensitive: false,
        createdAt: clock.now,
        expiresAt: clock.now + day,
        supersedes: undefined,
        supersededBy: undefined,
        retractedAt: undefined,
      });
      expect(await backend.memory.get({ ...shopper, factId: saved.factId })).toEqual(saved);
      expect(await backend.memory.recall({ ...shopper, key: 'city' })).toEqual([
        { fact: saved, score: 1, matchedBy: 'key' },
      ]);
      const byText = await backend.memory.recall({ ...shopper, query: '他住在上海市吗' });
      expect(byText.map((recalled) => [recalled.fact.factId, recalled.matchedBy])).toEqual([[saved.factId, 'text']]);
    });

    it('ranks the better lexical match first and returns at most the limit', async () => {
      const { backend, clock } = await open();
      await backend.memory.save(fact({ key: 'drink', value: 'green tea, no sugar' }));
      clock.now += 1;
      await backend.memory.save(fact({ key: 'shipping', value: 'deliver after 6 pm to the office' }));
      clock.now += 1;
      await backend.memory.save(fact({ key: 'tea_brand', value: 'Longjing from Hangzhou' }));
      clock.now += 1;
      await backend.memory.save(fact({ key: 'colour', value: 'green' }));
      const ranked = await backend.memory.recall({ ...shopper, query: 'green tea', limit: 2 });
      expect(ranked.map((recalled) => recalled.fact.key)).toEqual([
        'drink',
        expect.stringMatching(/^(tea_brand|colour)$/),
      ]);
      expect(ranked[0]?.score).toBeGreaterThan(ranked[1]?.score ?? 1);
      expect(await backend.memory.recall({ ...shopper, query: 'office delivery time' })).toMatchObject([
        { fact: { key: 'shipping' } },
      ]);
      expect(await backend.memory.recall({ ...shopper, query: '!!! ???' })).toEqual([]);
    });

    it('puts the exact key first, then text matches, each fact once', async () => {
      const { backend } = await open();
      const city = (await backend.memory.save(fact({ key: 'city', value: 'Hangzhou' }))).fact;
      const office = (await backend.memory.save(fact({ key: 'office_city', value: 'Hangzhou city centre' }))).fact;
      const recalled = await backend.memory.recall({ ...shopper, key: 'city', query: 'city hangzhou' });
      expect(recalled.map((entry) => [entry.fact.factId, entry.matchedBy])).toEqual([
        [city.factId, 'key'],
        [office.factId, 'text'],
      ]);
    });

    it('supersedes the old value of a key, keeps both for audit and recalls only the new one', async () => {
      const { backend, clock } = await open();
      const old = (await backend.memory.save(fact({ value: 'Beijing' }))).fact;
      clock.now += 1_000;
      const { fact: current, superseded } = await backend.memory.save(fact({ value: 'Shanghai' }));
      expect(current.supersedes).toBe(old.factId);
      expect(superseded).toMatchObject({ factId: old.factId, supersededBy: current.factId });
      expect(await backend.memory.get({ ...shopper, factId: old.factId })).toMatchObject({
        value: 'Beijing',
        supersededBy: current.factId,
      });
      expect(
        (await backend.memory.recall({ ...shopper, key: 'city', query: 'Beijing Shanghai' })).map((r) => r.fact.value),
      ).toEqual(['Shanghai']);
      expect((await backend.memory.list(shopper)).map((entry) => entry.value)).toEqual(['Shanghai']);
      expect((await backend.memory.list({ ...shopper, history: true })).map((entry) => entry.value)).toEqual([
        'Beijing',
        'Shanghai',
      ]);
    });

    it('never recalls an expired fact, and a purge deletes expired facts of every owner only', async () => {
      const { backend, clock } = await open();
      await backend.memory.save(fact({ key: 'coupon', value: 'SPRING10 coupon', expiresAt: clock.now + 1_000 }));
      await backend.memory.save(
        fact({ userId: 'C2002', key: 'coupon', value: 'SUMMER coupon', expiresAt: clock.now + 500 }),
      );
      const kept = (await backend.memory.save(fact({ key: 'city', value: 'Shanghai' }))).fact;
      expect(await backend.memory.recall({ ...shopper, key: 'coupon' })).toHaveLength(1);
      clock.now += 1_000;
      expect(await backend.memory.recall({ ...shopper, key: 'coupon', query: 'coupon spring10' })).toEqual([]);
      expect(await backend.memory.embedded({ ...shopper, limit: 10 })).toEqual([]);
      expect((await backend.memory.list(shopper)).map((entry) => entry.key)).toEqual(['city']);
      expect(await backend.memory.purgeExpired()).toBe(2);
      expect(await backend.memory.purgeExpired()).toBe(0);
      expect(await backend.memory.list({ ...shopper, history: true })).toEqual([kept]);
    });

    it('undoes a save: the fact is retracted and kept, the previous value is current again', async () => {
      const { backend, clock } = await open();
      const old = (await backend.memory.save(fact({ value: 'Beijing' }))).fact;
      clock.now += 1;
      const wrong = (await backend.memory.save(fact({ value: 'Shenzhen' }))).fact;
      expect(await backend.memory.retract({ tenantId: 'shop', userId: 'C2002', factId: wrong.factId })).toBe(false);
      expect(await backend.memory.retract({ tenantId: 'other', userId: 'C1001', factId: wrong.factId })).toBe(false);
      clock.now += 1;
      expect(await backend.memory.retract({ ...shopper, factId: wrong.factId })).toBe(true);
      expect(await backend.memory.retract({ ...shopper, factId: wrong.factId })).toBe(false);
      expect((await backend.memory.recall({ ...shopper, key: 'city' })).map((r) => r.fact.factId)).toEqual([
        old.factId,
      ]);
      expect(await backend.memory.get({ ...shopper, factId: wrong.factId })).toMatchObject({ retractedAt: clock.now });
      // A save after the undo supersedes the restored value.
      const next = (await backend.memory.save(fact({ value: 'Hangzhou' }))).fact;
      expect(next.supersedes).toBe(old.factId);
      expect((await backend.memory.list(shopper)).map((entry) => entry.value)).toEqual(['Hangzhou']);
    });

    it('retracts a version that is no longer current without making an older one current again', async () => {
      const { backend, clock } = await open();
      await backend.memory.save(fact({ value: 'Beijing' }));
      clock.now += 1;
      const middle = (await backend.memory.save(fact({ value: 'Shenzhen' }))).fact;
      clock.now += 1;
      const latest = (await backend.memory.save(fact({ value: 'Hangzhou' }))).fact;
      expect(await backend.memory.retract({ ...shopper, factId: middle.factId })).toBe(true);
      expect(await backend.memory.list(shopper)).toEqual([latest]);
      expect((await backend.memory.recall({ ...shopper, key: 'city' })).map((r) => r.fact.value)).toEqual(['Hangzhou']);
    });

    it('forgets every version of a key, of a fact, or of the whole owner, and nobody else’s', async () => {
      const { backend } = await open();
      await backend.memory.save(fact({ value: 'Beijing' }));
      const city = (await backend.memory.save(fact({ value: 'Shanghai' }))).fact;
      await backend.memory.save(fact({ key: 'drink', value: 'tea' }));
      await backend.memory.save(fact({ key: 'size', value: 'M' }));
      const neighbour = (await backend.memory.save(fact({ userId: 'C2002', value: 'Shanghai' }))).fact;
      const otherTenant = (await backend.memory.save(fact({ tenantId: 'other', value: 'Shanghai' }))).fact;
      expect(await backend.memory.forget({ tenantId: 'shop', userId: 'C2002', factId: city.factId })).toBe(0);
      expect(await backend.memory.forget({ ...shopper, key: 'drink', factId: city.factId })).toBe(0);
      expect(await backend.memory.forget({ ...shopper, factId: city.factId })).toBe(2);
      expect(await backend.memory.forget({ ...shopper, key: 'drink' })).toBe(1);
      expect(await backend.memory.recall({ ...shopper, query: 'Shanghai tea' })).toEqual([]);
      expect(await backend.memory.forget(shopper)).toBe(1);
      expect(await backend.memory.list({ ...shopper, history: true })).toEqual([]);
      expect(await backend.memory.list({ tenantId: 'shop', userId: 'C2002' })).toEqual([neighbour]);
      expect(await backend.memory.list({ tenantId: 'other', userId: 'C1001' })).toEqual([otherTenant]);
    });

    it('stores embeddings for a vector search of one owner’s current facts, newest first', async () => {
      const { backend, clock } = await open();
      await backend.memory.save(fact({ key: 'a', value: 'first', embedding: [1, 0] }));
      clock.now += 1;
      await backend.memory.save(fact({ key: 'b', value: 'second', embedding: [0, 1] }));
      await backend.memory.save(fact({ key: 'c', value: 'no vector' }));
      await backend.memory.save(fact({ userId: 'C2002', key: 'a', value: 'theirs', embedding: [1, 1] }));
      const candidates = await backend.memory.embedded({ ...shopper, limit: 10 });
      expect(candidates.map(({ fact: entry, embedding }) => [entry.key, embedding])).toEqual([
        ['b', [0, 1]],
        ['a', [1, 0]],
      ]);
    });

    it('refuses a blank key or value, an owner missing, or an expiry in the past, storing nothing', async () => {
      const { backend, clock } = await open();
      for (const bad of [
        fact({ key: ' ' }),
        fact({ value: '' }),
        fact({ value: 'x'.repeat(1_001) }),
        fact({ key: 'k'.repeat(101) }),
        fact({ tenantId: '' }),
        fact({ userId: '' }),
        fact({ expiresAt: clock.now }),
        fact({ userId: 'C1001\u0000' }),
        fact({ value: 'a\u0000b' }),
      ]) {
        let error: unknown;
        try {
          await backend.memory.save(bad);
        } catch (caught) {
          error = caught;
        }
        expect(MemoryFactError.isInstance(error)).toBe(true);
      }
      expect(await backend.memory.list({ ...shopper, history: true })).toEqual([]);
    });

    it('treats hostile text in a query or a value as text, not as search syntax or SQL', async () => {
      const { backend } = await open();
      const hostile = `x" OR scope : * OR "'; DROP TABLE memory_facts; -- ) | ! & :*`;
      await backend.memory.save(fact({ key: 'note', value: hostile }));
      await backend.memory.save(fact({ userId: 'C2002', key: 'note', value: hostile }));
      const recalled = await backend.memory.recall({ ...shopper, query: hostile });
      expect(recalled.map((entry) => entry.fact.userId)).toEqual(['C1001']);
      // The index's owner terms are not searchable text: asking for another owner's finds nothing.
      const neighbourScope = memoryScopeTerm({ tenantId: 'shop', userId: 'C2002' });
      expect(await backend.memory.recall({ ...shopper, query: neighbourScope })).toEqual([]);
      expect(await backend.memory.recall({ ...shopper, query: memoryScopeTerm(shopper) })).toEqual([]);
    });

    it('never recalls, lists or returns another tenant’s or user’s fact (property)', async () => {
      const { backend } = await open();
      let run = 0;
      const ids = fc.constantFrom('a', 'b', 'C1001', 'c1001', 'a:b', 'a b', '上海');
      const words = fc.constantFrom('city', 'tea', 'green', 'office', '上海', '北京', '咖啡', 'size', 'M');
      const factArbitrary = fc.record({
        tenantId: ids,
        userId: ids,
        key: fc.constantFrom('city', 'drink', 'size', 'office', '城市'),
        value: fc.array(words, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' ')),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(factArbitrary, { minLength: 1, maxLength: 12 }),
          fc.record({
            tenantId: ids,
            userId: ids,
            key: fc.option(fc.constantFrom('city', 'drink', 'size', 'office', '城市'), { nil: undefined }),
            query: fc.option(
              fc.array(words, { maxLength: 4 }).map((parts) => parts.join(' ')),
              { nil: undefined },
            ),
          }),
          async (facts, asker) => {
            // One store for every run: the facts of earlier runs (other prefixes) are more owners to leak from.
            run += 1;
            const prefix = `r${run}:`;
            const owner = { tenantId: prefix + asker.tenantId, userId: asker.userId };
            const saved = [];
            for (const entry of facts) {
              saved.push(
                (
                  await backend.memory.save(
                    fact({ ...entry, tenantId: prefix + entry.tenantId, embedding: [entry.value.length, 1] }),
                  )
                ).fact,
              );
            }
            const own = (entry: { tenantId: string; userId: string }) =>
              entry.tenantId === owner.tenantId && entry.userId === owner.userId;
            const request = {
              ...owner,
              limit: 50,
              ...(asker.key === undefined ? {} : { key: asker.key }),
              ...(asker.query === undefined ? {} : { query: asker.query }),
            };
            for (const recalled of await backend.memory.recall(request)) expect(own(recalled.fact)).toBe(true);
            for (const listed of await backend.memory.list({ ...owner, history: true })) expect(own(listed)).toBe(true);
            for (const candidate of await backend.memory.embedded({ ...owner, limit: 50 })) {
              expect(own(candidate.fact)).toBe(true);
            }
            for (const entry of saved) {
              const got = await backend.memory.get({ ...owner, factId: entry.factId });
              expect(got === undefined).toBe(!own(entry));
            }
            // What an owner recalls by key is exactly its own current value of it.
            if (asker.key !== undefined) {
              const mine = saved.filter((entry) => own(entry) && entry.key === asker.key).at(-1);
              const byKey = await backend.memory.recall({ ...owner, key: asker.key });
              expect(byKey.map((entry) => entry.fact.factId)).toEqual(mine === undefined ? [] : [mine.factId]);
            }
          },
        ),
        { numRuns: 40 },
      );
    }, 60_000);
  });
}
