import { describe, expect, it } from 'vitest';
import type { CallHistoryFilter, CallHistorySource } from '../core/call-history.js';
import type { Principal } from '../core/principal.js';
import { createCallHistory, startOfDay } from './create-call-history.js';

const alice: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const bob: Principal = { tenantId: 'shop', userId: 'C1002', roles: ['customer'] };

/** A source that records what it was asked and answers nothing. */
function recordingSource(): CallHistorySource & { readonly asked: CallHistoryFilter[] } {
  const asked: CallHistoryFilter[] = [];
  return {
    asked,
    findCalls: (filter) => {
      asked.push(filter);
      return [];
    },
  };
}

describe('startOfDay', () => {
  it('is midnight of the day the instant falls on in the time zone', () => {
    const at = Date.parse('2026-09-04T20:00:00Z');
    expect(new Date(startOfDay(at, 'UTC')).toISOString()).toBe('2026-09-04T00:00:00.000Z');
    // 04:00 on 5 September in Shanghai (UTC+8): the day began at 16:00 UTC the day before.
    expect(new Date(startOfDay(at, 'Asia/Shanghai')).toISOString()).toBe('2026-09-04T16:00:00.000Z');
    expect(new Date(startOfDay(Date.parse('2026-09-04T15:59:59.999Z'), 'Asia/Shanghai')).toISOString()).toBe(
      '2026-09-03T16:00:00.000Z',
    );
    expect(new Date(startOfDay(at, 'America/New_York')).toISOString()).toBe('2026-09-04T04:00:00.000Z');
  });
});

describe('createCallHistory', () => {
  it("scopes every window to the call: its run, its session (or run), the principal's day", async () => {
    const source = recordingSource();
    const now = () => Date.parse('2026-09-04T20:00:00Z');
    const inSession = createCallHistory({
      source,
      runId: 'run-1',
      sessionId: 'session-1',
      principal: alice,
      tool: 'apply_refund',
      now,
    });
    await inSession.history.calls({ within: 'run' });
    await inSession.history.calls({ within: 'session', tool: 'add_order_note' });
    await inSession.history.calls({ within: 'day', decisions: ['auto_approved'], timeZone: 'Asia/Shanghai' });
    inSession.release();
    const alone = createCallHistory({
      source,
      runId: 'run-2',
      sessionId: undefined,
      principal: undefined,
      tool: 'apply_refund',
      now,
    });
    await alone.history.calls({ within: 'session' });
    await alone.history.calls({ within: 'day' });
    alone.release();
    expect(source.asked).toEqual([
      { tool: 'apply_refund', runId: 'run-1' },
      { tool: 'add_order_note', sessionId: 'session-1' },
      {
        tool: 'apply_refund',
        tenantId: 'shop',
        userId: 'C1001',
        since: Date.parse('2026-09-04T16:00:00Z'),
        decisions: ['auto_approved'],
      },
      { tool: 'apply_refund', runId: 'run-2' },
      { tool: 'apply_refund', tenantId: null, userId: null, since: Date.parse('2026-09-04T00:00:00Z') },
    ]);
  });

  it("holds a principal's next history read until the call that read first is released, and nobody else's", async () => {
    const source = recordingSource();
    const open = (principal: Principal, runId: string) =>
      createCallHistory({ source, runId, sessionId: undefined, principal, tool: 'apply_refund' });
    const first = open(alice, 'run-1');
    const second = open(alice, 'run-2');
    const other = open(bob, 'run-3');
    const order: string[] = [];
    await first.history.calls({ within: 'day' });
    order.push('first read');
    const waiting = second.history.calls({ within: 'day' }).then(() => order.push('second read'));
    await other.history.calls({ within: 'day' });
    order.push('other principal read');
    await new Promise((resolve) => setImmediate(resolve));
    order.push('first released');
    first.release();
    await waiting;
    second.release();
    other.release();
    expect(order).toEqual(['first read', 'other principal read', 'first released', 'second read']);
  });

  it('takes no lock for a call whose rule never reads the history, and an empty history without a source', async () => {
    const source = recordingSource();
    const unread = createCallHistory({
      source,
      runId: 'run-1',
      sessionId: undefined,
      principal: alice,
      tool: 'apply_refund',
    });
    unread.release();
    const next = createCallHistory({
      source,
      runId: 'run-2',
      sessionId: undefined,
      principal: alice,
      tool: 'apply_refund',
    });
    expect(await next.history.calls({ within: 'day' })).toEqual([]);
    next.release();
    const none = createCallHistory({
      source: undefined,
      runId: 'run-3',
      sessionId: undefined,
      principal: alice,
      tool: 'x',
    });
    expect(await none.history.calls({ within: 'run' })).toEqual([]);
    none.release();
  });

  it('answers through `calls` taken from the history, which gives the tool no way to release the lock', async () => {
    const source = recordingSource();
    const scoped = createCallHistory({
      source,
      runId: 'run-1',
      sessionId: 's1',
      principal: alice,
      tool: 'apply_refund',
    });
    const { calls } = scoped.history;
    expect(scoped.history.calls).toBe(calls);
    expect(await calls({ within: 'session' })).toEqual([]);
    expect('release' in scoped.history).toBe(false);
    expect(Object.keys(scoped.history)).toEqual([]);
    scoped.release();
  });
});

describe('createCallHistory with a store that reserves history', () => {
  it('holds the store reservation from the first read until release, and a failed reservation blocks nobody', async () => {
    const log: string[] = [];
    let failNext = true;
    const source: CallHistorySource = {
      findCalls: () => [],
      reserveHistory: async (key) => {
        if (failNext) {
          failNext = false;
          throw new Error('store unreachable');
        }
        log.push(`take ${key}`);
        return async () => void log.push(`drop ${key}`);
      },
    };
    const scoped = () =>
      createCallHistory({ source, runId: 'run-1', sessionId: undefined, principal: alice, tool: 'apply_refund' });
    // The store could not be reached: the rule's read fails (the call is refused), and the principal's queue moves on.
    const failed = scoped();
    await expect(failed.history.calls({ within: 'day' })).rejects.toThrow('store unreachable');
    failed.release();
    const first = scoped();
    await first.history.calls({ within: 'day' });
    await first.history.calls({ within: 'run' });
    expect(log).toEqual(['take shop\u0000C1001']);
    const second = scoped();
    const reading = second.history.calls({ within: 'day' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual(['take shop\u0000C1001']);
    first.release();
    first.release();
    await reading;
    expect(log).toEqual(['take shop\u0000C1001', 'drop shop\u0000C1001', 'take shop\u0000C1001']);
    second.release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log.at(-1)).toBe('drop shop\u0000C1001');
  });
});
