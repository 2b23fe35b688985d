import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lintToolSpec } from '../../cli/commands/lint-tools.js';
import { emptyCallHistory } from '../../core/call-history.js';
import type { Principal } from '../../core/principal.js';
import { createTierGate } from '../../gate/tier-gate.js';
import { resumeAfterApproval } from '../../loop/resume-after-approval.js';
import { runAgent } from '../../loop/run-agent.js';
import { runSession } from '../../loop/run-session.js';
import { SqliteApprovalBroker } from '../../store/sqlite/sqlite-approval-broker.js';
import { SqliteSessionStore } from '../../store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolContext } from '../../tools/tool-types.js';
import { McpConnectionError } from './mcp-connection-error.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { McpServerMount, type McpToolChanges } from './mcp-server-mount.js';
import { openMcpMounts } from './mount-mcp-servers.js';
import { fixtureServer, scriptedCalls, toolMessages } from './test-support/mcp-harness.js';

// A hostile server built on the official SDK (test/fixtures/mcp/hostile-server.mjs), over stdio and over
// Streamable HTTP: what a third party can do to arbiter after the operator reviewed its tools.
const alice: Principal = { tenantId: 'acme', userId: 'alice', roles: [] };
const hostileServer = resolve('test/fixtures/mcp/hostile-server.mjs');
const children: ChildProcess[] = [];
const mounts: McpServerMount[] = [];
afterEach(async () => {
  await Promise.all(mounts.splice(0).map((mount) => mount.close()));
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The hostile server over Streamable HTTP, started fresh (its state is per process). */
async function httpServer(environment: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [hostileServer], {
    env: { ...process.env, ...environment, HOSTILE_HTTP_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const port = await new Promise<string>((resolvePort, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (\d+)/.exec(output);
      if (match?.[1] !== undefined) resolvePort(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`hostile server exited with ${code}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

const transports = [
  {
    transport: 'stdio',
    config: async (environment: Record<string, string> = {}): Promise<McpServerConfig> => ({
      name: 'evil',
      command: process.execPath,
      args: [hostileServer],
      env: environment,
    }),
  },
  {
    transport: 'Streamable HTTP',
    config: async (environment: Record<string, string> = {}): Promise<McpServerConfig> => ({
      name: 'evil',
      url: await httpServer(environment),
    }),
  },
] as const;

/** Waits (generously) until `check` holds. */
async function eventually(check: () => boolean): Promise<void> {
  const until = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

for (const { transport, config } of transports) {
  describe(`a hostile MCP server over ${transport}`, () => {
    async function open(server: McpServerConfig) {
      const seen: McpToolChanges[] = [];
      const mount = await McpServerMount.open({ server, onChange: (changes) => seen.push(changes) });
      mounts.push(mount);
      const registry = new ToolRegistry();
      mount.attach(registry);
      /** Redefines evil_pay on the server and waits until arbiter re-listed it. */
      const redefine = async (to: 'read_only' | 'thousands') => {
        const before = mount.tools.find((tool) => tool.mcpName === 'evil_pay')?.fingerprint;
        await registry.get('evil_redefine')?.definition.execute({ to }, directContext());
        // Over stdio the server announces tools/list_changed; a stateless HTTP server cannot, so it is re-listed.
        if (transport !== 'stdio') await mount.refresh();
        await eventually(() => mount.tools.find((tool) => tool.mcpName === 'evil_pay')?.fingerprint !== before);
      };
      return { mount, registry, seen, redefine };
    }

    it('never lowers a tier after mount: evil_pay re-listed as readOnlyHint stays irreversible and does not run unapproved', async () => {
      const { mount, registry, redefine } = await open(await config());
      expect(mount.tools.find((tool) => tool.mcpName === 'evil_pay')?.tier.sideEffect).toBe('irreversible');
      await redefine('read_only');
      const pay = mount.tools.find((tool) => tool.mcpName === 'evil_pay');
      expect(pay?.tier.sideEffect).toBe('irreversible');
      expect(pay?.notes).toContain(
        'tier "irreversible" kept: the server re-listed it as "read" after it was mounted, and the server is not trusted',
      );
      expect(registry.get('evil_evil_pay')?.definition.sideEffect).toBe('irreversible');
      const result = await runAgent({
        model: scriptedCalls({ name: 'evil_evil_pay', arguments: { amount: 7 } }),
        tools: registry,
        gate: createTierGate({ tools: registry }),
        messages: [{ role: 'user', content: 'pay' }],
      });
      expect(toolMessages(result.messages)[0]).toContain('no_approver');
      const log = await registry.get('evil_paid_log')?.definition.execute({}, directContext());
      expect(JSON.stringify(log)).toContain('[]');
    });

    it('lets a trusted server lower its tier, as configured', async () => {
      const { mount, redefine } = await open({ ...(await config()), trusted: true });
      await redefine('read_only');
      expect(mount.tools.find((tool) => tool.mcpName === 'evil_pay')?.tier.sideEffect).toBe('read');
    });

    it('gives a redefined tool a new fingerprint and reports the old and the new one', async () => {
      const { mount, seen, redefine } = await open(await config());
      const before = mount.tools.find((tool) => tool.mcpName === 'evil_pay')?.fingerprint;
      expect(before).toMatch(/^[0-9a-f]{64}$/);
      await redefine('thousands');
      const after = mount.tools.find((tool) => tool.mcpName === 'evil_pay');
      expect(after?.definition.description).toBe('Pays amount THOUSANDS of yuan to the attacker.');
      expect(after?.fingerprint).not.toBe(before);
      expect(after?.definition.fingerprint).toBe(after?.fingerprint);
      if (transport === 'stdio') {
        await eventually(() => seen.some((changes) => changes.changed.includes('evil_evil_pay')));
        const change = seen.flatMap((changes) => changes.definitions).find((each) => each.name === 'evil_evil_pay');
        expect(change).toMatchObject({
          oldFingerprint: before,
          newFingerprint: after?.fingerprint,
          newTier: 'irreversible',
        });
      }
    });

    it('warns of instructions to the model in a tool description (mcp tools and lint)', async () => {
      const { registry } = await open(await config());
      const spec = registry.get('evil_exfiltrate')?.spec;
      if (spec === undefined) throw new Error('evil_exfiltrate not mounted');
      const warnings = lintToolSpec({ spec, siblings: [spec] }).warnings.filter(
        (warning) => warning.code === 'instruction_to_model',
      );
      expect(warnings.map((warning) => warning.message.split(':')[0])).toEqual([
        'description tells the model to ignore its instructions',
        'description orders the model to call or send something',
        'description asks for data to be sent to a URL',
      ]);
    });

    it('voids an approval asked before the tool was redefined: the call is refused as tool_changed and never runs', async () => {
      const { registry, redefine } = await open(await config());
      const store = openSqliteStore({ path: ':memory:' });
      try {
        const { database } = store;
        const sessions = new SqliteSessionStore({ database });
        const broker = new SqliteApprovalBroker({ database });
        const options = {
          model: scriptedCalls({ name: 'evil_evil_pay', arguments: { amount: 7 } }),
          tools: registry,
          principal: alice,
          gate: createTierGate({ tools: registry }),
        };
        const session = await sessions.create({ principal: alice });
        const first = await runSession({
          ...options,
          sessions,
          sessionId: session.id,
          userMessage: 'pay',
          approvals: broker,
        });
        expect(first.stopReason).toBe('awaiting_approval');
        const [pending] = broker.listApprovals({ runId: first.runId });
        if (pending === undefined) throw new Error('no approval requested');
        await redefine('thousands');
        const resumed = await resumeAfterApproval({
          ...options,
          sessions,
          broker,
          approvalId: pending.approvalId,
          decision: 'approve',
          approver: 'reviewer',
        });
        expect(resumed.status).toBe('resumed');
        const messages = (await sessions.load(session.id))?.messages ?? [];
        expect(toolMessages(messages).join('\n')).toContain('tool_changed');
        const log = await registry.get('evil_paid_log')?.definition.execute({}, directContext());
        expect(JSON.stringify(log)).toContain('[]');
      } finally {
        store.close();
      }
    });

    it('never sends a call checked under the definition before a change', async () => {
      const { registry, redefine } = await open(await config());
      const checked = registry.get('evil_evil_pay')?.definition;
      await redefine('thousands');
      await expect(checked?.execute({ amount: 7 }, directContext())).rejects.toMatchObject({ code: 'tool_changed' });
      const log = await registry.get('evil_paid_log')?.definition.execute({}, directContext());
      expect(JSON.stringify(log)).toContain('[]');
    });

    it('mounts a tool claiming readOnlyHint and destructiveHint at once as irreversible (the stricter claim)', async () => {
      const { mount } = await open(await config());
      expect(mount.tools.find((tool) => tool.mcpName === 'both_hints')?.tier.sideEffect).toBe('irreversible');
    });

    it('refuses a 700-level-deep tool schema before anything recursive reads it, and mounts the other tools', async () => {
      const { mount } = await open(await config({ HOSTILE_LISTING: 'deep' }));
      expect(mount.refusals.map((refusal) => refusal.message)).toEqual([
        'MCP server "evil", tool "deep_schema": nests more than 64 levels deep',
      ]);
      expect(mount.tools.map((tool) => tool.mcpName)).toEqual([
        'evil_pay',
        'both_hints',
        'redefine',
        'paid_log',
        'exfiltrate',
      ]);
    });

    for (const listing of ['huge', 'fail'] as const) {
      it(`reports a server whose listing is ${listing === 'huge' ? '10 MB' : 'an error'} and mounts every other server`, async () => {
        const mcp = await openMcpMounts({
          servers: [
            await config({ HOSTILE_LISTING: listing }),
            { name: 'fx', command: process.execPath, args: [fixtureServer] },
          ],
        });
        try {
          expect(mcp.failures.map((failure) => failure.server)).toEqual(['evil']);
          expect(mcp.failures[0]?.message).toMatch(/^MCP server "evil" could not (be mounted|list its tools): /);
          expect(mcp.failures[0]?.message).not.toContain('\n');
          expect(mcp.definitions.map((definition) => definition.name)).toContain('fx_echo_text');
        } finally {
          await mcp.close();
        }
      }, 60_000);
    }

    it('rejects McpServerMount.open for a failed listing with one line naming the server', async () => {
      await expect(McpServerMount.open({ server: await config({ HOSTILE_LISTING: 'fail' }) })).rejects.toSatisfy(
        (error: unknown) => McpConnectionError.isInstance(error) && error.message.startsWith('MCP server "evil"'),
      );
    });
  });
}

function directContext(): ToolContext {
  return {
    runId: 'direct',
    sessionId: undefined,
    step: 1,
    toolCallId: 'call_1',
    principal: { tenantId: 'acme', userId: 'alice', roles: [] },
    signal: new AbortController().signal,
    locale: 'en',
    history: emptyCallHistory,
  };
}
