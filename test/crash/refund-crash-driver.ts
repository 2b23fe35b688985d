/**
 * One process of the refund crash test: asks the demo shop for one refund
 * (auto-approved, keyed `refund:SO20260901:2000`) through `runSession` with
 * SQLite's idempotency store, or resumes the session's active run, until the
 * run ends. With `--crash-at POINT` it SIGKILLs itself at that point of the
 * refund path:
 *
 * - `after-claim`: the key is claimed, the refund not yet made;
 * - `after-effect`: the refund row is committed, its result not recorded;
 * - `after-completed`: the result is recorded with the key, not in the journal;
 * - `after-journal`: the result is in the run's journal, the step not committed.
 *
 * `--no-reconcile` mounts `apply_refund` without its `reconcile` (arbiter as it
 * was before reconciliation). Appends `result {…}` lines to DIRECTORY/log.txt.
 *
 * node --import tsx test/crash/refund-crash-driver.ts DIRECTORY [--crash-at POINT] [--no-reconcile]
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openShopDatabase } from '../../examples/shop/shop-database.js';
import { createShopDomain } from '../../examples/shop/shop-domain.js';
import type { AssistantMessage } from '../../src/core/chat-message.js';
import type { RunJournal } from '../../src/core/run-journal.js';
import type { IdempotencyStore } from '../../src/gate/idempotency-store.js';
import { createTierGate } from '../../src/gate/tier-gate.js';
import { runSession } from '../../src/loop/run-session.js';
import type { Model } from '../../src/models/model.js';
import type { SessionStore } from '../../src/store/session-store.js';
import { openSqliteBackend } from '../../src/store/sqlite/open-sqlite-backend.js';
import { ToolRegistry } from '../../src/tools/tool-registry.js';
import type { ToolDefinition } from '../../src/tools/tool-types.js';

export const refundSessionId = 'refund-crash';
const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const refundArguments = {
  order_id: 'SO20260901',
  amount_cents: 2000,
  reason_category: 'damaged',
  reason: 'The mug arrived with a chipped handle.',
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'crash-at': { type: 'string' }, 'no-reconcile': { type: 'boolean' } },
});
const directory = positionals[0];
if (directory === undefined) {
  process.stderr.write('usage: refund-crash-driver DIRECTORY [--crash-at POINT] [--no-reconcile]\n');
  process.exit(2);
}
const crashAt = values['crash-at'];
const log = (line: string) => appendFileSync(join(directory, 'log.txt'), `${line}\n`);
const point = (where: string) => {
  if (crashAt !== where) return;
  log(`crash ${where}`);
  process.kill(process.pid, 'SIGKILL');
};

const shop = openShopDatabase({ path: join(directory, 'shop.db') });
// A killed process's history reservation lapses after 2 s here (30 s by default): the resumed process waits for it.
// A killed process's claim is judged abandoned after a second of silence, so the resumed run reconciles soon.
const backend = openSqliteBackend({ path: join(directory, 'arbiter.db'), historyLeaseMs: 2000, claimLeaseMs: 1000 });
const { tools: shopTools, gateRules } = createShopDomain({
  database: shop,
  now: () => new Date('2026-09-05T08:00:00Z'),
});
const tools = new ToolRegistry();
for (const tool of shopTools) {
  if (tool.name !== 'apply_refund') {
    tools.register(tool);
    continue;
  }
  const { reconcile, ...withoutReconcile } = tool as ToolDefinition;
  tools.register({
    ...withoutReconcile,
    ...(values['no-reconcile'] === true || reconcile === undefined ? {} : { reconcile }),
    execute: async (args, context) => {
      log('execute apply_refund');
      const result = await tool.execute(args as never, context);
      point('after-effect');
      return result;
    },
  });
}

const idempotency: IdempotencyStore = {
  claim: async (request) => {
    const claim = await backend.idempotency.claim(request);
    log(`claim ${claim.status}`);
    if (claim.status !== 'claimed') return claim;
    point('after-claim');
    return {
      ...claim,
      complete: async (outcome) => {
        await claim.complete(outcome);
        point('after-completed');
      },
    };
  },
  resolveUnknown: async (request) => {
    const claim = await backend.idempotency.resolveUnknown(request);
    log(`reconciled ${request.resolution.kind} ${claim.status}`);
    return claim;
  },
};

const base = backend.sessions;
const sessions: SessionStore = {
  create: (options) => base.create(options),
  load: (sessionId) => base.load(sessionId),
  list: (options) => base.list(options),
  append: (request) => base.append(request),
  setSlots: (request) => base.setSlots(request),
  getSlots: (sessionId) => base.getSlots(sessionId),
  fork: (request) => base.fork(request),
  purge: (request) => base.purge(request),
  beginRun: (request) => base.beginRun(request),
  endRun: (request) => base.endRun(request),
  journal: (request): RunJournal => {
    const journal = base.journal(request);
    return {
      findToolResult: (runId, toolCallId) => journal.findToolResult(runId, toolCallId),
      recordToolResult: async (runId, result) => {
        await journal.recordToolResult(runId, result);
        if (result.tool === 'apply_refund') point('after-journal');
      },
      commitStep: (commit) => journal.commitStep(commit),
    };
  },
};

/** Asks for the refund, then answers with the tool message it got, word for word. */
const model: Model = {
  name: 'refund-crash',
  async generate({ messages }) {
    const last = messages.at(-1);
    const message: AssistantMessage =
      last?.role === 'tool'
        ? { role: 'assistant', content: `refund answer: ${last.content}` }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_refund',
                type: 'function',
                function: { name: 'apply_refund', arguments: JSON.stringify(refundArguments) },
              },
            ],
          };
    return {
      message,
      usage: { inputTokens: 10, outputTokens: 5 },
      finishReason: message.tool_calls === undefined ? 'stop' : 'tool_calls',
    };
  },
};

try {
  if ((await sessions.load(refundSessionId)) === undefined) {
    await sessions.create({ sessionId: refundSessionId, principal });
  }
  const session = await sessions.load(refundSessionId);
  const common = {
    sessions,
    sessionId: refundSessionId,
    model,
    tools,
    principal,
    idempotency,
    audit: backend.audit,
    gate: createTierGate({ rules: gateRules, tools }),
    limits: { maxSteps: 4 },
  };
  const result =
    session?.activeRun !== undefined
      ? await runSession({ ...common, resume: true })
      : await runSession({ ...common, userMessage: 'Please refund 20.00 yuan on SO20260901: the mug was chipped.' });
  log(`result ${JSON.stringify({ stopReason: result.stopReason, text: result.text })}`);
} finally {
  backend.close();
  shop.close();
}
