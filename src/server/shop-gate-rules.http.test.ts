import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServeFlags, runServe, serveOptions } from '../cli/commands/serve.js';
import { GateRuleError } from '../errors/gate-rule-error.js';
import { ServerConfigError } from '../errors/server-config-error.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { ExternalEvent } from '../events/external-event.js';
import { createTierGate } from '../gate/tier-gate.js';
import type { Script } from '../models/script.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { SqliteAuditLog } from '../store/sqlite/sqlite-audit-log.js';
import type { AssembledServer } from './create-server.js';
import { createServer } from './create-server.js';
import { type RunningServer, startServer } from './start-server.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testAuth, testTokens } from './test-support/test-server.js';

/** A model that asks for a refund of 10,000.00 yuan: twice the shop's hard cap of 5000.00. */
const overCapRefund: Script = {
  name: 'over-cap-refund',
  onRefusal: "I'm sorry, I can't do that: {reason}",
  turns: [
    {
      steps: [
        {
          call: {
            name: 'apply_refund',
            arguments: {
              order_id: 'SO20260902',
              amount_cents: 1_000_000,
              reason_category: 'damaged',
              reason: 'The glass teapot arrived cracked.',
            },
          },
        },
        { say: 'Done.' },
      ],
    },
  ],
};

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** Sends one message as alice and reads the run's events to their end. */
async function askFor(
  running: { url: string },
  content: string,
): Promise<{ sessionId: string; events: ExternalEvent[] }> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${running.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testTokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as Record<string, string>;
  };
  const { id: sessionId = '' } = await post('/v1/sessions', {});
  const { runId = '' } = await post(`/v1/sessions/${sessionId}/messages`, { content });
  const { events } = await readSse({ url: `${running.url}/v1/runs/${runId}/events`, token: testTokens.alice });
  return { sessionId, events };
}

function refundsIn(dataDir: string): number {
  const shop = new Database(join(dataDir, 'shop.db'), { readonly: true });
  try {
    return (shop.prepare('SELECT COUNT(*) AS count FROM refunds').get() as { count: number }).count;
  } finally {
    shop.close();
  }
}

describe("arbiter serve applies the shop's gate rules", () => {
  it('denies a refund over the hard cap outright: no approval is created, nothing is refunded', async () => {
    server = await startTestServer({ model: new ScriptedModel({ script: overCapRefund }) });
    const refundsBefore = refundsIn(server.dataDir);
    const { sessionId, events } = await askFor(server, 'Refund 10,000.00 yuan for the teapot, please.');

    expect(events.some((event) => event.type === 'approval:required')).toBe(false);
    expect(events.find((event) => event.type === 'tool:error')).toMatchObject({
      tool: 'apply_refund',
      stage: 'gate',
      code: 'refund_over_hard_cap',
      retryable: false,
    });
    expect(events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
    expect(server.server.approvals.listApprovals()).toEqual([]);
    const session = await server.request(`/v1/sessions/${sessionId}`, { token: testTokens.staff });
    expect(session.body).toMatchObject({ status: 'idle', pendingApprovals: [] });
    expect(refundsIn(server.dataDir)).toBe(refundsBefore);
    const audit = new SqliteAuditLog({ database: server.server.store.database }).listAudit({ sessionId });
    expect(audit.map(({ tool, decision, rule, outcome }) => ({ tool, decision, rule, outcome }))).toEqual([
      { tool: 'apply_refund', decision: 'denied', rule: 'refund_hard_cap', outcome: 'not_run' },
    ]);
  });

  it('still sends a refund under the cap but over 50.00 yuan to a person', async () => {
    server = await startTestServer();
    const { events } = await askFor(server, 'My teapot arrived cracked, I want a refund.');
    expect(events.find((event) => event.type === 'approval:required')).toMatchObject({ tool: 'apply_refund' });
    expect(server.server.approvals.listApprovals({ status: 'pending' })).toHaveLength(1);
  });

  it('applies the cap when the shop is served as a tools module (--tools examples/shop/shop-domain.ts)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-domain-'));
    const { options, close } = await serveOptions(
      parseServeFlags(['--port', '0', '--data-dir', directory, '--tools', 'examples/shop/shop-domain.ts']),
      {},
    );
    expect(options.gateRules?.map((rule) => rule.rule)).toEqual(['refund_hard_cap']);
    const running = await startServer({
      ...options,
      port: 0,
      auth: testAuth,
      model: new ScriptedModel({ script: overCapRefund }),
      onError: () => {},
    });
    try {
      const { events } = await askFor(running, 'Refund 10,000.00 yuan.');
      expect(events.find((event) => event.type === 'tool:error')).toMatchObject({ code: 'refund_over_hard_cap' });
      expect(running.server.approvals.listApprovals()).toEqual([]);
    } finally {
      await running.close();
      await close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('the tools module format carries gate rules', () => {
  const moduleWithRules = (directory: string, body: string) => {
    const path = join(directory, `tools-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(
      path,
      `const sendInvoice = {
        name: 'send_invoice',
        description: 'Send an invoice to the signed-in customer. Not for looking one up.',
        parameters: { type: 'object', properties: { total_cents: { type: 'integer', description: 'Total in cents' } },
          required: ['total_cents'], additionalProperties: false },
        sideEffect: 'reversible',
        execute: ({ total_cents }) => ({ sent: total_cents }),
      };
      const capRule = { tool: 'send_invoice', when: { field: 'total_cents', above: 100000 }, effect: 'deny',
        rule: 'invoice_cap', message: 'Invoices above 1000.00 are issued by accounting.' };
      ${body}`,
    );
    return path;
  };
  const invoiceScript: Script = {
    name: 'invoice',
    onRefusal: 'Sorry: {reason}',
    turns: [{ steps: [{ call: { name: 'send_invoice', arguments: { total_cents: 250_000 } } }, { say: 'Sent.' }] }],
  };

  it.each([
    [
      'exported beside createTools',
      'export const gateRules = [capRule]; export function createTools() { return [sendInvoice]; }',
    ],
    [
      'returned by createTools',
      'export function createTools() { return { tools: [sendInvoice], gateRules: [capRule] }; }',
    ],
    ['exported beside a tools array', 'export const tools = [sendInvoice]; export const gateRules = [capRule];'],
  ])('serves a module whose rules are %s, and the server denies by them', async (_, body) => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-rules-'));
    const authFile = join(directory, 'auth.json');
    writeFileSync(authFile, JSON.stringify(testAuth));
    const scriptFile = join(directory, 'invoice-script.json');
    writeFileSync(scriptFile, JSON.stringify(invoiceScript));
    let running: RunningServer<AssembledServer> | undefined;
    const exit = runServe({
      args: [
        ...['--port', '0', '--data-dir', join(directory, 'data'), '--auth', authFile],
        ...['--tools', moduleWithRules(directory, body), '--script', scriptFile],
      ],
      write: () => {},
      onStarted: (started) => {
        running = started;
      },
    });
    while (running === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    try {
      const { events } = await askFor(running, 'Send me the invoice for 2500.00, please.');
      expect(events.find((event) => event.type === 'tool:error')).toMatchObject({
        tool: 'send_invoice',
        stage: 'gate',
        code: 'invoice_cap',
      });
      expect(events.some((event) => event.type === 'tool:end')).toBe(false);
    } finally {
      await running.close();
      expect(await exit).toBe(0);
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses rules given twice, rules that are not an array, and rules naming a tool that is not registered', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-rules-'));
    const context = { dataDir: directory };
    const { loadToolsModule } = await import('./load-tools-module.js');
    const twice = moduleWithRules(
      directory,
      'export const gateRules = [capRule]; export function createTools() { return { tools: [sendInvoice], gateRules: [capRule] }; }',
    );
    await expect(loadToolsModule({ path: twice, context })).rejects.toThrow(/gives gate rules twice/);
    const notArray = moduleWithRules(
      directory,
      'export const tools = [sendInvoice]; export const gateRules = capRule;',
    );
    await expect(loadToolsModule({ path: notArray, context })).rejects.toSatisfy(ToolDefinitionError.isInstance);
    const typo = moduleWithRules(
      directory,
      "export const tools = [sendInvoice]; export const gateRules = [{ ...capRule, tool: 'send_invoices' }];",
    );
    const loaded = await loadToolsModule({ path: typo, context });
    expect(() =>
      createServer({ dataDir: ':memory:', auth: testAuth, tools: loaded.tools, gateRules: loaded.gateRules }),
    ).toThrow(/names tool "send_invoices", which is not registered/);
    rmSync(directory, { recursive: true, force: true });
  });

  it('refuses gateRules together with a gate of its own, which would not apply them', () => {
    let thrown: unknown;
    try {
      createServer({ dataDir: ':memory:', auth: testAuth, gate: createTierGate(), gateRules: [] });
    } catch (error) {
      thrown = error;
    }
    expect(ServerConfigError.isInstance(thrown)).toBe(true);
    expect(GateRuleError.isInstance(thrown)).toBe(false);
    expect((thrown as ServerConfigError).setting).toBe('gateRules');
  });
});
