import { describe, expect, it } from 'vitest';
import { checkGate } from './check-gate.js';
import { gatedCallFixture } from './test-support/gated-call-fixture.js';

describe('checkGate', () => {
  it('returns a synchronous gate answer as is, without a promise', () => {
    const { runtime, call } = gatedCallFixture();
    expect(checkGate(runtime, call)).toEqual({ decision: 'allow' });
  });

  it('hands the gate the bound arguments and the context, and returns its promise', async () => {
    const seen: unknown[] = [];
    const { runtime, call } = gatedCallFixture({
      runtime: {
        gate: {
          check: async ({ args, context }) => {
            seen.push(args, context.toolCallId);
            return { decision: 'deny', rule: 'cap', code: 'over_cap', message: 'Too much.' };
          },
        },
      },
    });
    const checking = checkGate(runtime, call);
    expect(checking).toBeInstanceOf(Promise);
    expect(await checking).toMatchObject({ decision: 'deny', code: 'over_cap' });
    expect(seen).toEqual([{ order_id: 'SO20260901', amount_cents: 2000 }, 'call_1']);
  });
});
