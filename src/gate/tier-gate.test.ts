import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyCallHistory } from '../core/call-history.js';
import { GateRuleError } from '../errors/gate-rule-error.js';
import { defineTool } from '../tools/define-tool.js';
import { type RegisteredTool, ToolRegistry } from '../tools/tool-registry.js';
import type { ToolContext, ToolDefinition } from '../tools/tool-types.js';
import { createPaymentTools } from './test-support/payment-tools.js';
import { createTierGate, type GateRule } from './tier-gate.js';

const tools = createPaymentTools({ database: new Database(':memory:') });
const context: ToolContext = {
  runId: 'run-1',
  sessionId: undefined,
  step: 1,
  toolCallId: 'call_1',
  principal: undefined,
  signal: new AbortController().signal,
  locale: 'en',
  history: emptyCallHistory,
};

function check(gate: ReturnType<typeof createTierGate>, toolName: string, args: Record<string, unknown>) {
  const tool = tools.get(toolName);
  if (tool === undefined) throw new Error(`no tool ${toolName}`);
  return gate.check({ tool, args, context });
}

const hardCap: GateRule = {
  tool: 'send_payment',
  when: { field: 'amount_cents', above: 500_000 },
  effect: 'deny',
  rule: 'payment_hard_cap',
  message: 'Payments above 5000.00 are made by staff only.',
};

describe('createTierGate', () => {
  const gate = createTierGate({ rules: [hardCap], tools });

  it('allows a read call when no rule applies', async () => {
    expect(await check(gate, 'read_balance', { account: 'AC1001' })).toEqual({ decision: 'allow' });
  });

  it('allows a reversible call when no rule applies (the runner audits it)', async () => {
    expect(await check(gate, 'tag_account', { account: 'AC1001', tag: 'vip' })).toEqual({ decision: 'allow' });
  });

  it('asks a person for an irreversible call when the tool has no rule of its own', async () => {
    expect(await check(gate, 'close_account', { account: 'AC1001' })).toMatchInlineSnapshot(`
      {
        "decision": "require_approval",
        "reason": "close_account cannot be undone, so a person must approve each call.",
        "rule": "irreversible_default",
      }
    `);
  });

  it("auto-approves an irreversible call when the tool's own rule allows it, naming the rule", async () => {
    expect(await check(gate, 'send_payment', { account: 'AC1001', amount_cents: 9_999, reference: 'r' })).toEqual({
      decision: 'allow',
      rule: 'payment_under_100',
    });
  });

  it("asks a person when the tool's own rule requires it", async () => {
    expect(await check(gate, 'send_payment', { account: 'AC1001', amount_cents: 10_000, reference: 'r' })).toEqual({
      decision: 'require_approval',
      rule: 'payment_100_or_more',
      reason: 'Payments of 100.00 or more need a person.',
    });
  });

  it('denies outright above the configured hard cap, whatever the tool says', async () => {
    expect(await check(gate, 'send_payment', { account: 'AC1001', amount_cents: 500_001, reference: 'r' })).toEqual({
      decision: 'deny',
      rule: 'payment_hard_cap',
      code: 'payment_hard_cap',
      message: 'Payments above 5000.00 are made by staff only.',
    });
    expect(
      (await check(gate, 'send_payment', { account: 'AC1001', amount_cents: 500_000, reference: 'r' })).decision,
    ).toBe('require_approval');
  });

  it('sends a call the tool would allow to a person when a configured rule says so', async () => {
    const strict = createTierGate({
      rules: [
        {
          tool: 'send_payment',
          when: { field: 'account', oneOf: ['AC9999'] },
          effect: 'require_approval',
          rule: 'watched_account',
          message: 'AC9999 is under review; every payment to it is checked.',
        },
      ],
    });
    expect(await check(strict, 'send_payment', { account: 'AC9999', amount_cents: 100, reference: 'r' })).toEqual({
      decision: 'require_approval',
      rule: 'watched_account',
      reason: 'AC9999 is under review; every payment to it is checked.',
    });
    expect(
      (await check(strict, 'send_payment', { account: 'AC1001', amount_cents: 100, reference: 'r' })).decision,
    ).toBe('allow');
  });

  it('can deny a read tool as well, with a rule that has no condition', async () => {
    const closed = createTierGate({
      rules: [{ tool: 'read_balance', effect: 'deny', code: 'maintenance', message: 'Balances are offline.' }],
    });
    expect(await check(closed, 'read_balance', { account: 'AC1001' })).toEqual({
      decision: 'deny',
      rule: 'config_rule_1',
      code: 'maintenance',
      message: 'Balances are offline.',
    });
  });

  it('does not match a numeric rule when the field is missing or not a number', async () => {
    const rules: GateRule[] = [
      { tool: '*', when: { field: 'amount_cents', atLeast: 0 }, effect: 'deny', message: 'no' },
    ];
    const any = createTierGate({ rules });
    expect((await check(any, 'read_balance', { account: 'AC1001' })).decision).toBe('allow');
    expect((await check(any, 'read_balance', { account: 'AC1001', amount_cents: '5' })).decision).toBe('allow');
    expect((await check(any, 'read_balance', { account: 'AC1001', amount_cents: 5 })).decision).toBe('deny');
  });

  it("denies when the tool's own rule throws", async () => {
    const base = tools.get('send_payment');
    if (base === undefined) throw new Error('no send_payment');
    const broken = {
      ...base,
      definition: {
        ...base.definition,
        approval: () => {
          throw new Error('bug in the rule');
        },
      },
    };
    expect(await createTierGate().check({ tool: broken, args: { amount_cents: 1 }, context })).toMatchInlineSnapshot(`
      {
        "code": "approval_rule_failed",
        "decision": "deny",
        "message": "The rule that decides whether this call may run could not be evaluated, so it was not run.",
        "rule": "approval_rule_failed",
      }
    `);
  });

  it("awaits a tool's asynchronous rule, which may read the history, and denies when it rejects", async () => {
    const base = tools.get('send_payment');
    if (base === undefined) throw new Error('no send_payment');
    const oncePerRun = {
      ...base,
      definition: {
        ...base.definition,
        approval: async (_args: unknown, { history }: ToolContext) =>
          (await history.calls({ within: 'run' })).length === 0
            ? { verdict: 'allow' as const, rule: 'first_payment_of_run' }
            : {
                verdict: 'require_approval' as const,
                rule: 'second_payment_of_run',
                reason: 'One automatic payment per run.',
              },
      },
    };
    const paidBefore: ToolContext = {
      ...context,
      history: {
        calls: async () => [
          {
            at: 1,
            runId: 'run-1',
            sessionId: undefined,
            toolCallId: 'call_0',
            tool: 'send_payment',
            arguments: { amount_cents: 1 },
            decision: 'auto_approved',
            rule: 'first_payment_of_run',
          },
        ],
      },
    };
    const gate = createTierGate();
    expect(await gate.check({ tool: oncePerRun, args: { amount_cents: 1 }, context })).toEqual({
      decision: 'allow',
      rule: 'first_payment_of_run',
    });
    expect(await gate.check({ tool: oncePerRun, args: { amount_cents: 1 }, context: paidBefore })).toEqual({
      decision: 'require_approval',
      rule: 'second_payment_of_run',
      reason: 'One automatic payment per run.',
    });
    const unreadable: ToolContext = { ...context, history: { calls: () => Promise.reject(new Error('locked')) } };
    expect(await gate.check({ tool: oncePerRun, args: { amount_cents: 1 }, context: unreadable })).toMatchObject({
      decision: 'deny',
      code: 'approval_rule_failed',
    });
  });

  it('rejects a configured rule at creation when it names an unknown tool, no comparison or an unknown effect', async () => {
    const attempt = (rule: GateRule) => {
      try {
        createTierGate({ rules: [rule], tools });
      } catch (error) {
        if (GateRuleError.isInstance(error)) return error.message;
        throw error;
      }
      return 'accepted';
    };
    expect(attempt({ ...hardCap, tool: 'send_paymnet' })).toMatchInlineSnapshot(
      `"gate rule 1 ("payment_hard_cap") names tool "send_paymnet", which is not registered; registered: read_balance, tag_account, send_payment, close_account"`,
    );
    expect(attempt({ ...hardCap, when: { field: 'amount_cents' } })).toMatchInlineSnapshot(
      `"gate rule 1 ("payment_hard_cap") compares "amount_cents" with nothing; give one of above, atLeast, below, atMost, equals, oneOf"`,
    );
    expect(attempt({ ...hardCap, effect: 'allow' as 'deny' })).toMatchInlineSnapshot(
      `"gate rule 1 ("payment_hard_cap") has effect "allow"; expected one of deny, require_approval"`,
    );
  });

  it('decides every amount by the same three bands: allow below 100.00, a person up to the cap, deny above', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2_000_000 }), async (amount) => {
        const { decision } = await check(gate, 'send_payment', {
          account: 'AC1001',
          amount_cents: amount,
          reference: 'r',
        });
        expect(decision).toBe(amount > 500_000 ? 'deny' : amount >= 10_000 ? 'require_approval' : 'allow');
      }),
    );
  });
});

describe('mayRequireApproval', () => {
  const tool = (definition: Partial<ToolDefinition<Record<string, unknown>, unknown>>) =>
    new ToolRegistry()
      .register(
        defineTool<Record<string, unknown>>({
          name: 'lookup',
          description: 'Looks something up. Not for changes: use another tool.',
          parameters: { type: 'object', properties: {} },
          sideEffect: 'read',
          execute: () => ({}),
          ...definition,
        }),
      )
      .get(definition.name ?? 'lookup') as RegisteredTool;

  it('is false only where neither the tier, the tool nor a configured rule can ask a person', () => {
    expect(createTierGate().mayRequireApproval?.(tool({}))).toBe(false);
    expect(createTierGate().mayRequireApproval?.(tool({ sideEffect: 'irreversible' }))).toBe(true);
    expect(
      createTierGate().mayRequireApproval?.(tool({ approval: () => ({ verdict: 'allow', rule: 'small_enough' }) })),
    ).toBe(true);
    const review = { effect: 'require_approval', message: 'A person looks first.' } as const;
    expect(createTierGate({ rules: [{ tool: '*', ...review }] }).mayRequireApproval?.(tool({}))).toBe(true);
    expect(createTierGate({ rules: [{ tool: 'lookup', ...review }] }).mayRequireApproval?.(tool({}))).toBe(true);
    expect(createTierGate({ rules: [{ tool: 'other', ...review }] }).mayRequireApproval?.(tool({}))).toBe(false);
    expect(
      createTierGate({ rules: [{ tool: 'lookup', effect: 'deny', message: 'Never.' }] }).mayRequireApproval?.(tool({})),
    ).toBe(false);
  });
});
