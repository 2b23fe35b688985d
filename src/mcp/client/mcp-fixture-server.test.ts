import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyCallHistory } from '../../core/call-history.js';
import type { Principal } from '../../core/principal.js';
import { runAgent } from '../../loop/run-agent.js';
import { SqliteIdempotencyStore } from '../../store/sqlite/sqlite-idempotency-store.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolContext } from '../../tools/tool-types.js';
import { McpConnectionError } from './mcp-connection-error.js';
import { McpResultError } from './mcp-result-error.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { McpServerMount } from './mcp-server-mount.js';
import { fixtureServer, recordingBus, scriptedCalls, toolMessages } from './test-support/mcp-harness.js';

// A server built on the official SDK (test/fixtures/mcp/fixture-server.mjs), over stdio: once as a
// 2025-era server (initialize only), once served by serveStdio, which offers 2026-07-28 too.
const eras = [
  { protocolVersion: '2025-11-25', environment: {} },
  { protocolVersion: '2026-07-28', environment: { FIXTURE_MODERN: '1' } },
] as const;
const mounts: McpServerMount[] = [];
afterEach(async () => {
  await Promise.all(mounts.splice(0).map((mount) => mount.close()));
});

const alice: Principal = { tenantId: 'acme', userId: 'alice', roles: [] };
const bob: Principal = { tenantId: 'acme', userId: 'bob', roles: [] };
const mallory: Principal = { tenantId: 'other', userId: 'alice', roles: [] };

/** The context of a mounted tool's `execute` called directly (outside a run), for alice, without progress. */
function directContext(runId: string): ToolContext {
  return {
    runId,
    sessionId: undefined,
    step: 1,
    toolCallId: 'call_1',
    principal: alice,
    signal: new AbortController().signal,
    locale: 'en',
    history: emptyCallHistory,
  };
}

for (const { protocolVersion, environment } of eras) {
  describe(`MCP client against an SDK-built server speaking ${protocolVersion}`, () => {
    async function open(server: Partial<McpServerConfig> & { env?: Record<string, string> } = {}) {
      const mount = await McpServerMount.open({
        server: {
          name: 'fx',
          command: process.execPath,
          args: [fixtureServer],
          ...server,
          env: { ...environment, ...server.env },
        },
      });
      mounts.push(mount);
      const registry = new ToolRegistry();
      mount.attach(registry);
      return { mount, registry };
    }

    it(`negotiates ${protocolVersion}, the newest revision both sides speak`, async () => {
      const { mount } = await open();
      expect(await mount.connection.protocolVersion()).toBe(protocolVersion);
    });

    it(`speaks ${protocolVersion} when pinned to it, without offering the other`, async () => {
      const { mount } = await open({ protocolVersion });
      expect(await mount.connection.protocolVersion()).toBe(protocolVersion);
    });

    it('lists the tools of every page', async () => {
      const { mount } = await open({ env: { FIXTURE_PAGE_SIZE: '2' } });
      expect(mount.tools.map((tool) => tool.mcpName)).toEqual([
        'whoami',
        'echo_text',
        'add_tool',
        'wait_for_cancel',
        'cancelled_count',
        'exit_now',
        'count_calls',
        'progress_token',
      ]);
    });

    it('refuses hostile schemas at mount time, naming server, tool and field, and mounts the rest', async () => {
      const { mount, registry } = await open({ env: { FIXTURE_HOSTILE: '1' } });
      expect(mount.refusals.map((refusal) => refusal.message)).toMatchInlineSnapshot(`
      [
        "MCP server "fx", tool "lookahead_code", field "properties.code.pattern": the pattern "^(?=.*\\\\d)[a-z0-9]+$" cannot be matched in linear time (invalid or unsupported Perl syntax: \`(?=\`); lookaround and backreferences need a backtracking engine, which one argument can stall",
        "MCP server "fx", tool "never_valid", field "properties.flag": can never be satisfied: "type" is boolean but no "enum" value ("yes", "no") is",
        "MCP server "fx", tool "enormous_schema", field "inputSchema": is 125 KB of JSON, above the 32 KB limit (it would be sent to the model on every turn)",
      ]
    `);
      // A name models refuse is made valid; an enormous description is cut; a nested quantifier runs in linear time.
      const odd = mount.tools.find((tool) => tool.mcpName === 'nested.tool name!');
      expect(odd?.name).toBe('fx_nested_tool_name_');
      expect(odd?.definition.description.length).toBe(1200);
      expect(registry.names).not.toContain('fx_lookahead_code');
      const started = performance.now();
      const validate = registry.get('fx_nested_tool_name_')?.validator('en');
      expect(validate?.({ q: `${'a'.repeat(50_000)}b` })).toHaveLength(1);
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('refuses structuredContent that breaks the tool’s own outputSchema', async () => {
      const { registry } = await open({ env: { FIXTURE_HOSTILE: '1' } });
      const result = await runAgent({
        model: scriptedCalls({ name: 'fx_structured_lie', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(result.messages)[0]).toContain('does not match its own output schema');
    });

    it('tells the model of a malformed result, naming the server and the field, and the run goes on', async () => {
      const { registry } = await open({ env: { FIXTURE_HOSTILE: '1' } });
      const result = await runAgent({
        model: scriptedCalls({ name: 'fx_malformed_result', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(result.stopReason).toBe('completed');
      // A 2026-07-28 result is checked by the SDK's wire codec first, in its own words.
      const problem =
        protocolVersion === '2025-11-25' ? 'content[0].text is not a string' : 'Invalid result for tools/call';
      expect(toolMessages(result.messages)[0]).toContain(`The MCP server "fx" sent a malformed result (${problem}`);
      expect(toolMessages(result.messages)[0]).toContain('the result was not used.');
    });

    it('ends the run on a malformed answer to a call that may have acted, and never sends that call again', async () => {
      const { registry } = await open({ env: { FIXTURE_HOSTILE: '1' } });
      const store = openSqliteStore({ path: ':memory:' });
      try {
        const idempotency = new SqliteIdempotencyStore({ database: store.database });
        const run = () =>
          runAgent({
            model: scriptedCalls({ name: 'fx_malformed_write', arguments: {} }),
            tools: registry,
            messages: [{ role: 'user', content: 'go' }],
            principal: alice,
            idempotency,
            // irreversible by default: let it through the gate
            gate: { check: () => ({ decision: 'allow', rule: 'test' }) },
          });
        const first = await run();
        expect(first.stopReason).toBe('error');
        const cause = (first.error?.cause as { cause?: unknown } | undefined)?.cause;
        expect(McpResultError.isInstance(cause)).toBe(true);
        expect((cause as Error).message).toContain(
          'MCP server "fx" answered a call of "malformed_write", which may have acted, with a result that cannot be used',
        );
        // The key stayed claimed, its outcome unknown: the same call is refused, not sent.
        const second = await run();
        expect(second.stopReason).toBe('completed');
        expect(toolMessages(second.messages)[0]).toContain('its outcome is unknown. It will not be repeated');
        // count_calls shares the server's counter with malformed_write: one write, then this call.
        const counter = registry.get('fx_count_calls')?.definition;
        expect(await counter?.execute({}, directContext('run_count'))).toBe('2');
      } finally {
        store.close();
      }
    });

    it('sends a call through the SDK’s callTool only for a tool that declares an x-mcp-header parameter', async () => {
      const { mount, registry } = await open({ env: { FIXTURE_HOSTILE: '1' } });
      const client = await mount.connection.sdkClient();
      const viaCallTool = vi.spyOn(client, 'callTool');
      const viaRequest = vi.spyOn(client, 'request');
      const result = await runAgent({
        model: scriptedCalls(
          { name: 'fx_header_param', arguments: { region: 'eu' } },
          { name: 'fx_echo_text', arguments: { text: 'plain' } },
        ),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(result.messages)).toEqual(['"region eu"', '"plain"']);
      // callTool sends through request() itself: one call of it, two requests in all.
      expect(viaCallTool.mock.calls.map(([params]) => params.name)).toEqual(['header_param']);
      expect(viaRequest.mock.calls.map(([request]) => (request.params as { name?: string }).name)).toEqual([
        'header_param',
        'echo_text',
      ]);
    });

    it('asks for progress only for a context that takes it', async () => {
      const { registry } = await open();
      const tool = registry.get('fx_progress_token')?.definition;
      const context = directContext('run_progress');
      expect(await tool?.execute({}, context)).toBe('no token');
      expect(await tool?.execute({}, { ...context, reportProgress: () => {} })).toBe('token');
    });

    it('checks structuredContent itself, never with the SDK’s validator, even when the SDK holds the tool list', async () => {
      const { mount, registry } = await open({ env: { FIXTURE_HOSTILE: '1' } });
      // A plain listing through the SDK fills its response cache, from which it would check results itself.
      await (await mount.connection.sdkClient()).listTools();
      const result = await runAgent({
        model: scriptedCalls({ name: 'fx_structured_lie', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(result.stopReason).toBe('completed');
      expect(toolMessages(result.messages)[0]).toContain('does not match its own output schema');
    });

    it('follows tools/list_changed: a tool the server adds is mounted and callable in the same run', async () => {
      const { mount, registry } = await open();
      const applied = new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (registry.get('fx_late_tool') !== undefined) {
            clearInterval(check);
            resolve();
          }
        }, 20);
      });
      const result = await runAgent({
        model: scriptedCalls({ name: 'fx_add_tool', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(result.messages)).toEqual(['"added late_tool"']);
      await applied;
      expect(registry.get('fx_late_tool')?.definition.sideEffect).toBe('read');
      expect(mount.tools.map((tool) => tool.name)).toContain('fx_late_tool');
      const late = await runAgent({
        model: scriptedCalls({ name: 'fx_late_tool', arguments: { n: 7 } }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(late.messages)).toEqual(['"late 7"']);
    });

    it('cancels the in-flight request on the server when the run is aborted', async () => {
      const { registry } = await open();
      const controller = new AbortController();
      const { events, seen } = recordingBus();
      events.subscribe((event) => {
        if (event.type === 'tool:start') setTimeout(() => controller.abort(), 100);
      });
      const result = await runAgent({
        model: scriptedCalls({ name: 'fx_wait_for_cancel', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
        events,
        signal: controller.signal,
      });
      expect(result.stopReason).toBe('aborted');
      expect(seen.some((event) => event.type === 'tool:start')).toBe(true);
      const count = await runAgent({
        model: scriptedCalls({ name: 'fx_cancelled_count', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(count.messages)).toEqual(['"1"']);
    });

    it('stops a call at its configured time limit, and the server hears the cancellation', async () => {
      const { registry } = await open({ tools: { wait_for_cancel: { timeoutMs: 300 } } });
      const result = await runAgent({
        model: scriptedCalls({ name: 'fx_wait_for_cancel', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(result.messages)[0]).toBe(
        'fx_wait_for_cancel did not answer within 0.3 seconds. You can call it again.',
      );
      const count = await runAgent({
        model: scriptedCalls({ name: 'fx_cancelled_count', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(count.messages)).toEqual(['"1"']);
    });

    it('keeps a call within its time limit while it waits for the connection to reopen', async () => {
      const { mount, registry } = await open({
        env: { FIXTURE_START_DELAY_MS: '800' },
        tools: { count_calls: { timeoutMs: 200 } },
      });
      const pid = await mount.connection.pid();
      if (pid === undefined) throw new Error('no server process');
      process.kill(pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      const result = await runAgent({
        model: scriptedCalls({ name: 'fx_count_calls', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(result.messages)).toEqual([
        'fx_count_calls did not answer within 0.2 seconds. You can call it again.',
      ]);
      expect(performance.now() - started).toBeLessThan(700);
    });

    it('reconnects transparently when the server process dies between calls', async () => {
      const { mount, registry } = await open();
      const first = await runAgent({
        model: scriptedCalls({ name: 'fx_count_calls', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(first.messages)).toEqual(['"1"']);
      const pid = await mount.connection.pid();
      if (pid === undefined) throw new Error('no server process');
      process.kill(pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = await runAgent({
        model: scriptedCalls({ name: 'fx_count_calls', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      // A fresh process: its count starts again.
      expect(toolMessages(second.messages)).toEqual(['"1"']);
      expect(second.stopReason).toBe('completed');
      expect(mount.connection.connects).toBe(2);
      expect(await mount.connection.pid()).not.toBe(pid);
    });

    it('does not repeat a call that may have acted when the connection drops under it: the run fails loudly', async () => {
      const { registry } = await open();
      const result = await runAgent({
        model: scriptedCalls({ name: 'fx_exit_now', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
        // irreversible by default: let it through the gate
        gate: { check: () => ({ decision: 'allow', rule: 'test' }) },
      });
      expect(result.stopReason).toBe('error');
      // The loop's InfrastructureError, caused by the connection's error.
      const cause = (result.error?.cause as { cause?: unknown } | undefined)?.cause;
      expect(McpConnectionError.isInstance(cause)).toBe(true);
      expect((cause as Error).message).toBe(
        'the connection to MCP server "fx" dropped during a call that may have acted; it was not repeated',
      );
    });

    it('opens a connection per principal with that principal’s credentials, and none for a principal without', async () => {
      const tokens: Record<string, string> = { 'acme/alice': 'token-of-alice', 'acme/bob': 'token-of-bob' };
      const { mount, registry } = await open({
        perPrincipal: (principal) => {
          const token = tokens[`${principal.tenantId}/${principal.userId}`];
          return token === undefined ? undefined : { env: { FIXTURE_TOKEN: token } };
        },
      });
      const whoami = (principal: Principal) =>
        runAgent({
          model: scriptedCalls({ name: 'fx_whoami', arguments: {} }),
          tools: registry,
          principal,
          messages: [{ role: 'user', content: 'go' }],
        }).then((result) => toolMessages(result.messages)[0]);
      const [forAlice, forBob] = await Promise.all([whoami(alice), whoami(bob)]);
      expect(forAlice).toBe('"token-of-alice"');
      expect(forBob).toBe('"token-of-bob"');
      expect(await whoami(alice)).toBe('"token-of-alice"');
      // Same user id in another tenant: not alice's connection, and no credentials of its own.
      expect(await whoami(mallory)).toMatch(/needs the user's own credentials, and none are configured for this user/);
      expect(mount.principalConnections).toEqual([JSON.stringify(['acme', 'bob']), JSON.stringify(['acme', 'alice'])]);
      // The shared connection (used for listing) was started without any user's token.
      const shared = await runAgent({
        model: scriptedCalls({ name: 'fx_whoami', arguments: {} }),
        tools: registry,
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(toolMessages(shared.messages)[0]).toMatch(/needs the user's own credentials/);
    });

    it('lets config make a tool stricter, never looser, unless the server is trusted', async () => {
      const untrusted = await open({
        tools: {
          whoami: { sideEffect: 'irreversible' },
          add_tool: { sideEffect: 'read' },
          exit_now: { disabled: true },
        },
      });
      const tier = (name: string) => untrusted.mount.tools.find((tool) => tool.mcpName === name)?.tier;
      expect(tier('whoami')).toEqual({ sideEffect: 'irreversible', fromAnnotations: 'read' });
      expect(tier('add_tool')).toEqual({
        sideEffect: 'reversible',
        fromAnnotations: 'reversible',
        ignoredOverride: 'read',
      });
      expect(untrusted.mount.tools.find((tool) => tool.mcpName === 'add_tool')?.notes).toContain(
        'configured tier "read" ignored: less strict than the annotations\' "reversible" and the server is not trusted',
      );
      expect(untrusted.registry.names).not.toContain('fx_exit_now');
      const trusted = await open({ trusted: true, tools: { add_tool: { sideEffect: 'read' } } });
      expect(trusted.registry.get('fx_add_tool')?.definition.sideEffect).toBe('read');
    });
  });
}

describe('MCP client pinned to a revision the server does not speak', () => {
  it('refuses to connect to a 2025-era server when pinned to 2026-07-28, naming the server', async () => {
    const opening = McpServerMount.open({
      server: { name: 'fx', command: process.execPath, args: [fixtureServer], protocolVersion: '2026-07-28' },
    });
    await expect(opening).rejects.toSatisfy(McpConnectionError.isInstance);
    await expect(opening).rejects.toThrow(
      'MCP server "fx" could not be reached: Version negotiation failed: the server did not offer pinned protocol version 2026-07-28',
    );
  });
});
