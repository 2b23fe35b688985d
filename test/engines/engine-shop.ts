/**
 * The shop every engine test runs: a read tool (`query_order`), a write
 * that needs no person (`add_order_note`, keyed, reconcilable) and one that
 * does (`refund_order`, irreversible), their effects as rows of `effects`
 * in the test's schema, and the scripted model counted in `model_calls`,
 * so a test reads from the database what happened, whichever process did it.
 */
import type pg from 'pg';
import type { ChatMessage } from '../../src/core/chat-message.js';
import type { Model, ModelRequest } from '../../src/models/model.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/tool-registry.js';

export async function createShopTables(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".effects (
    key text PRIMARY KEY, run_id text NOT NULL, tool text NOT NULL, pid integer NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
  await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".model_calls (
    id bigserial PRIMARY KEY, run_id text NOT NULL, last_role text NOT NULL, pid integer NOT NULL)`);
}

/** The scripted model, each request written down (run, last message's role) before it answers. */
export function countedShopModel({ pool, schema }: { pool: pg.Pool; schema: string }): Model {
  const scripted = new ScriptedModel({
    script: {
      name: 'engine-shop',
      turns: [
        {
          when: 'refund',
          steps: [
            { call: { name: 'query_order', arguments: { order_id: 'SO20260901' } } },
            { call: { name: 'refund_order', arguments: { order_id: 'SO20260901' } } },
            { say: 'Refunded order SO20260901.' },
          ],
        },
        {
          steps: [
            { call: { name: 'query_order', arguments: { order_id: 'SO20260902' } } },
            { call: { name: 'add_order_note', arguments: { order_id: 'SO20260902', note: 'gift wrap' } } },
            { say: 'Noted gift wrap on SO20260902.' },
          ],
        },
      ],
    },
  });
  return {
    name: scripted.name,
    generate: async (request: ModelRequest) => {
      const runId = runIdOf(request.messages);
      await pool.query(`INSERT INTO "${schema}".model_calls (run_id, last_role, pid) VALUES ($1, $2, $3)`, [
        runId,
        request.messages.at(-1)?.role ?? 'none',
        process.pid,
      ]);
      return scripted.generate(request);
    },
  };
}

/** The test names each run in its user message (`[run R]`), so the model's log can say which run asked. */
function runIdOf(messages: readonly ChatMessage[]): string {
  const first = messages.find((message) => message.role === 'user');
  const text = typeof first?.content === 'string' ? first.content : '';
  return /\[run ([^\]]+)\]/.exec(text)?.[1] ?? 'unknown';
}

/**
 * The tools. `holdWrites`: a write, once its effect is committed, waits
 * until the process is killed, so a test can kill it mid-execution.
 */
export function shopTools({ pool, schema, holdWrites }: { pool: pg.Pool; schema: string; holdWrites: boolean }) {
  const effect = async (key: string, runId: string, tool: string) => {
    await pool.query(
      `INSERT INTO "${schema}".effects (key, run_id, tool, pid) VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO NOTHING`,
      [key, runId, tool, process.pid],
    );
    if (holdWrites) await new Promise(() => {});
  };
  const happened = async (key: string) =>
    (await pool.query(`SELECT 1 FROM "${schema}".effects WHERE key = $1`, [key])).rowCount === 1;
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ order_id: string }>({
      name: 'query_order',
      description: 'Look up one order. Not to change it: use add_order_note or refund_order.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'read',
      execute: ({ order_id }) => ({ order_id, status: 'delivered', paid_cents: 2000 }),
    }),
  );
  registry.register(
    defineTool<{ order_id: string; note: string }, { noted: boolean }>({
      name: 'add_order_note',
      description: 'Add a note to an order. Not to refund it: use refund_order.',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' },
          note: { type: 'string', description: 'The note' },
        },
        required: ['order_id', 'note'],
      },
      sideEffect: 'reversible',
      idempotencyKey: ({ order_id, note }) => `note:${order_id}:${note}`,
      execute: async ({ order_id, note }, context) => {
        await effect(`note:${order_id}:${note}`, context.runId ?? 'unknown', 'add_order_note');
        return { noted: true };
      },
      reconcile: async (_args, key) =>
        (await happened(key)) ? { status: 'happened', result: { noted: true } } : { status: 'not_happened' },
    }),
  );
  registry.register(
    defineTool<{ order_id: string }, { refunded_cents: number }>({
      name: 'refund_order',
      description: 'Refund an order in full. Not to look one up: use query_order.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'irreversible',
      idempotencyKey: ({ order_id }) => `refund:${order_id}`,
      execute: async ({ order_id }, context) => {
        await effect(`refund:${order_id}`, context.runId ?? 'unknown', 'refund_order');
        return { refunded_cents: 2000 };
      },
      reconcile: async (_args, key) =>
        (await happened(key)) ? { status: 'happened', result: { refunded_cents: 2000 } } : { status: 'not_happened' },
    }),
  );
  return registry;
}
