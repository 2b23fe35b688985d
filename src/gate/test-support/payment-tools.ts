import type Database from 'better-sqlite3';
import { RetryableToolError } from '../../errors/retryable-tool-error.js';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { IdempotencyScope, ToolContext, ToolDefinition } from '../../tools/tool-types.js';

/**
 * A small domain for the gate's tests, independent of the shop example:
 * `read_balance` (read), `tag_account` (reversible, with undo),
 * `send_payment` (irreversible: under 100.00 automatic, from there a person,
 * idempotent on account + amount + reference, bound to the payer's tenant
 * and user) and `close_account`
 * (irreversible, no rule of its own). Payments and tags are rows in the
 * given database, so a test (or another process) can count them.
 */
export function createPaymentTools({
  database,
  onExecute,
  idempotencyScope,
}: {
  database: Database.Database;
  /** Whose the payment's idempotency key is; the tool's default (`principal`) when omitted. */
  idempotencyScope?: IdempotencyScope;
  /** Called when `send_payment` starts executing, before it writes (a test may hang here). */
  onExecute?: (args: { account: string; amount_cents: number }, context: ToolContext) => Promise<void> | void;
}): ToolRegistry {
  database.exec(`
    CREATE TABLE IF NOT EXISTS payments (
      payment_id INTEGER PRIMARY KEY AUTOINCREMENT,
      account TEXT NOT NULL, amount_cents INTEGER NOT NULL, reference TEXT NOT NULL, tenant TEXT, payer TEXT
    );
    CREATE TABLE IF NOT EXISTS account_tags (account TEXT NOT NULL, tag TEXT NOT NULL);
  `);
  const readBalance = defineTool<{ account: string }>({
    name: 'read_balance',
    description: 'Balance of an account. Not for paying: use send_payment.',
    parameters: {
      type: 'object',
      properties: { account: { type: 'string', pattern: '^AC\\d{4}$', examples: ['AC1001'] } },
      required: ['account'],
      additionalProperties: false,
    },
    sideEffect: 'read',
    execute: ({ account }) => ({ account, balance_cents: 120_000 }),
  });
  const tagAccount = defineTool<{ account: string; tag: string }, { account: string; tag: string }>({
    name: 'tag_account',
    description: 'Adds a tag to an account. Not for payments: use send_payment.',
    parameters: {
      type: 'object',
      properties: { account: { type: 'string' }, tag: { type: 'string', minLength: 1 } },
      required: ['account', 'tag'],
      additionalProperties: false,
    },
    sideEffect: 'reversible',
    execute: ({ account, tag }) => {
      database.prepare('INSERT INTO account_tags (account, tag) VALUES (?, ?)').run(account, tag);
      return { account, tag };
    },
    undo: (_args, result) => {
      database
        .prepare(
          'DELETE FROM account_tags WHERE rowid = (SELECT rowid FROM account_tags WHERE account = ? AND tag = ? LIMIT 1)',
        )
        .run(result.account, result.tag);
    },
  });
  const sendPayment = defineTool<{
    account: string;
    amount_cents: number;
    reference: string;
    card_number?: string;
    tenant?: string;
    payer?: string;
  }>({
    name: 'send_payment',
    description: 'Sends money to an account. Irreversible. Not for balances: use read_balance.',
    parameters: {
      type: 'object',
      properties: {
        account: { type: 'string', pattern: '^AC\\d{4}$', examples: ['AC1001'] },
        amount_cents: { type: 'integer', minimum: 1 },
        reference: { type: 'string', minLength: 1 },
        card_number: { type: 'string' },
        tenant: { type: 'string' },
        payer: { type: 'string' },
      },
      required: ['account', 'amount_cents', 'reference'],
      additionalProperties: false,
    },
    sideEffect: 'irreversible',
    boundParameters: { tenant: 'tenantId', payer: (principal) => principal.userId },
    dataScope: 'tenant_user',
    sensitive: ['card_number'],
    approval: ({ amount_cents }) =>
      amount_cents < 10_000
        ? { verdict: 'allow', rule: 'payment_under_100' }
        : {
            verdict: 'require_approval',
            rule: 'payment_100_or_more',
            reason: 'Payments of 100.00 or more need a person.',
          },
    idempotencyKey: ({ account, amount_cents, reference }) => `payment:${account}:${amount_cents}:${reference}`,
    ...(idempotencyScope === undefined ? {} : { idempotencyScope }),
    execute: async (args, context) => {
      await onExecute?.(args, context);
      if (args.account === 'AC0000') {
        throw new RetryableToolError({ code: 'account_not_found', field: 'account', message: 'No account AC0000.' });
      }
      const inserted = database
        .prepare('INSERT INTO payments (account, amount_cents, reference, tenant, payer) VALUES (?, ?, ?, ?, ?)')
        .run(args.account, args.amount_cents, args.reference, args.tenant ?? null, args.payer ?? null);
      return { payment_id: Number(inserted.lastInsertRowid), account: args.account, amount_cents: args.amount_cents };
    },
  });
  const closeAccount = defineTool<{ account: string }>({
    name: 'close_account',
    description: 'Closes an account for good. Not for tags: use tag_account.',
    parameters: {
      type: 'object',
      properties: { account: { type: 'string' } },
      required: ['account'],
      additionalProperties: false,
    },
    sideEffect: 'irreversible',
    execute: ({ account }) => ({ account, closed: true }),
  });
  const registry = new ToolRegistry();
  for (const tool of [readBalance, tagAccount, sendPayment, closeAccount] as ToolDefinition[]) registry.register(tool);
  return registry;
}

/** How many payments the database holds. */
export function countPayments(database: Database.Database): number {
  return (database.prepare('SELECT COUNT(*) AS count FROM payments').get() as { count: number }).count;
}
