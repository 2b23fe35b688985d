import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../loop/run-agent.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { compileToolValidator } from '../../validation/compile-tool-validator.js';
import { formatValidationMessage } from '../../validation/format-validation-message.js';
import { McpServerMount } from './mcp-server-mount.js';
import { everythingBin, recordingBus, scriptedCalls, toolMessages } from './test-support/mcp-harness.js';

// @modelcontextprotocol/server-everything, the protocol's reference server, over stdio.
let mount: McpServerMount;
const registry = new ToolRegistry();

beforeAll(async () => {
  mount = await McpServerMount.open({ server: { name: 'everything', command: everythingBin } });
  mount.attach(registry);
}, 30_000);
afterAll(async () => {
  await mount.close();
});

async function run(...calls: { name: string; arguments: unknown }[]) {
  const { events, seen } = recordingBus();
  const result = await runAgent({
    model: scriptedCalls(...calls),
    tools: registry,
    messages: [{ role: 'user', content: 'go' }],
    events,
  });
  return { result, seen, tools: toolMessages(result.messages) };
}

describe('MCP client against server-everything', () => {
  it('offers 2026-07-28 and settles on 2025-11-25, the newest revision server-everything (SDK 1.x) speaks', async () => {
    expect(await mount.connection.protocolVersion()).toBe('2025-11-25');
  });

  it('mounts every tool with the tier its annotations give', () => {
    const tiers = Object.fromEntries(mount.tools.map((tool) => [tool.name, tool.tier.sideEffect]));
    expect(tiers).toMatchObject({
      everything_echo: 'read',
      'everything_get-structured-content': 'read',
      'everything_trigger-long-running-operation': 'read',
      // readOnlyHint false, destructiveHint false
      'everything_gzip-file-as-resource': 'reversible',
      'everything_toggle-simulated-logging': 'reversible',
    });
    expect(mount.refusals).toEqual([]);
    expect(registry.get('everything_echo')?.spec.function.parameters).not.toHaveProperty('$schema');
  });

  it('refuses invalid arguments before anything is sent, with the message a native tool would give', async () => {
    const { tools, seen } = await run({ name: 'everything_get-structured-content', arguments: { location: 'Paris' } });
    const tool = registry.get('everything_get-structured-content');
    if (tool === undefined) throw new Error('not mounted');
    const native = formatValidationMessage({
      toolName: 'everything_get-structured-content',
      issues: compileToolValidator({ schema: tool.spec.function.parameters, toolName: tool.spec.function.name })({
        location: 'Paris',
      }),
    });
    expect(tools[0]).toBe(native);
    expect(tools[0]).toContain('New York');
    expect(seen.filter((event) => event.type === 'tool:start')).toEqual([]);
    expect(seen.find((event) => event.type === 'tool:error')).toMatchObject({ stage: 'validation' });
  });

  it('keeps structuredContent, without repeating it as text', async () => {
    const { tools } = await run({ name: 'everything_get-structured-content', arguments: { location: 'Chicago' } });
    expect(JSON.parse(tools[0] ?? '')).toEqual({
      structuredContent: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
    });
  });

  it('turns isError into a retryable tool error carrying the server text', async () => {
    const { tools, seen } = await run({ name: 'everything_get-resource-reference', arguments: { resourceId: 0 } });
    expect(tools[0]).toBe(
      'Error (mcp_tool_error): Invalid resourceId: 0. Must be a finite positive integer. You can correct the arguments and call everything_get-resource-reference again.',
    );
    expect(seen.find((event) => event.type === 'tool:error')).toMatchObject({
      stage: 'execution',
      code: 'mcp_tool_error',
      retryable: true,
    });
  });

  it('summarises images and embedded resources instead of dumping them', async () => {
    const { tools } = await run(
      { name: 'everything_get-tiny-image', arguments: {} },
      { name: 'everything_get-resource-reference', arguments: { resourceId: 2 } },
    );
    const [image, resource] = tools;
    expect(image).not.toContain('iVBOR');
    expect(JSON.parse(image ?? '')).toMatchObject({
      text: "Here's the image you requested:\nThe image above is the MCP logo.",
      attachments: [expect.stringMatching(/^\[image image\/png, [\d.]+ KB, not shown\]$/)],
    });
    expect(JSON.parse(resource ?? '').attachments).toEqual([
      expect.stringMatching(/^\[resource demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\), \d+ B, not shown\]$/),
    ]);
  });

  it('truncates long text like any tool output', async () => {
    const { tools } = await run({ name: 'everything_echo', arguments: { message: 'x'.repeat(6000) } });
    expect(tools[0]?.length).toBeLessThan(2100);
    expect(tools[0]).toMatch(/cut \d+ characters/);
  });

  it('turns the server progress notifications into tool:progress events', async () => {
    const { seen, tools } = await run({
      name: 'everything_trigger-long-running-operation',
      arguments: { duration: 0.3, steps: 3 },
    });
    expect(tools[0]).toContain('Long running operation completed');
    const progress = seen.filter((event) => event.type === 'tool:progress');
    // The last notification is sent right before the result and may lose the race with it (the SDK
    // drops progress for a request that has answered); the ones before it always arrive, in order.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((event) => [event.progress, event.total])).toEqual(
      [
        [1, 3],
        [2, 3],
        [3, 3],
      ].slice(0, progress.length),
    );
    const end = seen.find((event) => event.type === 'tool:end');
    expect(progress.every((event) => end !== undefined && event.seq < end.seq)).toBe(true);
  });
});
