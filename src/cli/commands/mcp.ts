import { parseArgs } from 'node:util';
import { countToolSpecTokens } from '../../context/count-tokens.js';
import { UsageError } from '../../errors/usage-error.js';
import { McpConnectionError } from '../../mcp/client/mcp-connection-error.js';
import type { McpServerConfig } from '../../mcp/client/mcp-server-config.js';
import { McpServerMount, type MountedMcpTool } from '../../mcp/client/mcp-server-mount.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { CommandResult } from '../cli-output.js';
import { mcpUsage } from '../command-usage.js';
import { lintToolSpec } from './lint-tools.js';

/** One `arbiter mcp` subcommand: its arguments in, its result out. */
export type McpSubcommand = (args: readonly string[]) => Promise<CommandResult>;

/**
 * The `arbiter mcp` subcommands that answer and exit. `serve` (arbiter's
 * tools as an MCP server, `mcp-serve.ts`) runs until its client leaves, so
 * the command table starts it directly.
 */
export const mcpSubcommands: Record<string, McpSubcommand> = {
  tools: (args) => mcpToolsCommand({ args }),
};

/**
 * `arbiter mcp SUBCOMMAND …`: dispatches to `mcpSubcommands`.
 *
 * @example
 * const result = await mcpCommand({ args: ['tools', '--', 'npx', '-y', '@modelcontextprotocol/server-everything'] });
 */
export async function mcpCommand({ args }: { args: readonly string[] }): Promise<CommandResult> {
  const [name, ...rest] = args;
  const subcommand = name === undefined ? undefined : mcpSubcommands[name];
  if (subcommand !== undefined && Object.hasOwn(mcpSubcommands, name ?? '')) return subcommand(rest);
  return {
    exitCode: 2,
    stdout: [],
    stderr: [
      `arbiter: ${name === undefined ? 'mcp needs a subcommand' : `unknown mcp subcommand "${name}"`}`,
      '',
      mcpUsage,
    ],
  };
}

/**
 * `arbiter mcp tools`: connects to one server (the command after `--`, or
 * `--url`), mounts its tools as `arbiter serve --mcp` would, and reports
 * the protocol revision agreed with the server, then each tool: its
 * arbiter name, tier and why, tokens per turn, the linter's warnings,
 * notes (a dropped `$schema`, a cut description), and every tool refused
 * with the reason. `--json` prints one JSON object instead.
 *
 * @example
 * const result = await mcpToolsCommand({ args: ['--', 'node_modules/.bin/mcp-server-filesystem', '/tmp'] });
 * result.stdout; // ['MCP server "mcp" speaks protocol revision 2025-11-25', 'files_read_text_file  read (readOnlyHint)  210 tokens per turn', …]
 */
export async function mcpToolsCommand({ args }: { args: readonly string[] }): Promise<CommandResult> {
  const split = args.indexOf('--');
  const flags = split === -1 ? args : args.slice(0, split);
  const command = split === -1 ? [] : args.slice(split + 1);
  const { values } = parseArgs({
    args: [...flags],
    options: {
      url: { type: 'string' },
      bearer: { type: 'string' },
      header: { type: 'string', multiple: true },
      name: { type: 'string', default: 'mcp' },
      json: { type: 'boolean', default: false },
      'timeout-ms': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const [executable, ...commandArgs] = command;
  if ((values.url === undefined) === (executable === undefined)) {
    throw new UsageError({ message: 'mcp tools needs either -- COMMAND [ARGS…] or --url URL' });
  }
  if (!/^[a-zA-Z][a-zA-Z0-9_-]{0,23}$/.test(values.name)) {
    throw new UsageError({
      message: `--name must be 1-24 letters, digits, _ or -, starting with a letter, got "${values.name}"`,
    });
  }
  const timeoutMs = values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError({ message: `--timeout-ms must be a whole number from 1, got "${values['timeout-ms']}"` });
  }
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon < 1) throw new UsageError({ message: `--header must be "Name: value", got "${header}"` });
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  const server: McpServerConfig = {
    name: values.name,
    ...(executable === undefined ? {} : { command: executable, args: commandArgs }),
    ...(values.url === undefined ? {} : { url: values.url }),
    ...(values.bearer === undefined ? {} : { bearer: values.bearer }),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
  let mount: McpServerMount;
  try {
    mount = await McpServerMount.open({ server });
  } catch (error) {
    if (McpConnectionError.isInstance(error)) return { exitCode: 2, stdout: [], stderr: [error.message] };
    throw error;
  }
  try {
    return report(mount, (await mount.connection.protocolVersion()) ?? 'unknown', values.json);
  } finally {
    await mount.close();
  }
}

function report(mount: McpServerMount, protocolVersion: string, json: boolean): CommandResult {
  const registry = new ToolRegistry();
  mount.attach(registry);
  // Linted under the server's own names: its descriptions name its tools that way, and the prefix is arbiter's.
  const asServerNames = mount.tools.flatMap((tool) => {
    const spec = registry.get(tool.name)?.spec;
    return spec === undefined ? [] : [{ ...spec, function: { ...spec.function, name: tool.mcpName } }];
  });
  const tools = mount.tools.map((tool) => {
    const spec = asServerNames.find((candidate) => candidate.function.name === tool.mcpName);
    const lint = spec === undefined ? undefined : lintToolSpec({ spec, siblings: asServerNames });
    const registered = registry.get(tool.name);
    return {
      name: tool.name,
      mcpName: tool.mcpName,
      sideEffect: tool.tier.sideEffect,
      tierReason: tierReason(tool),
      // What the model is sent: the prefixed name.
      tokens: registered === undefined ? 0 : countToolSpecTokens(registered.spec),
      warnings: lint?.warnings.map((warning) => warning.message) ?? [],
      notes: tool.notes,
    };
  });
  const refused = mount.refusals.map((refusal) => refusal.message);
  const totalTokens = tools.reduce((sum, tool) => sum + tool.tokens, 0);
  const exitCode = refused.length > 0 || tools.some((tool) => tool.warnings.length > 0) ? 1 : 0;
  if (json) return { exitCode, stdout: [JSON.stringify({ protocolVersion, tools, refused, totalTokens })], stderr: [] };
  const stdout: string[] = [`MCP server "${mount.server.name}" speaks protocol revision ${protocolVersion}`];
  // A note about the server's way of writing schemas (a dropped "$schema") is said once, not under every tool.
  const shared = sharedNotes(tools.map((tool) => tool.notes));
  for (const [note, count] of shared) {
    stdout.push(`note (${count === tools.length ? `all ${count} tools` : `${count} tools`}): ${note}`);
  }
  for (const tool of tools) {
    stdout.push(`${tool.name}  ${tool.sideEffect} (${tool.tierReason})  ${tool.tokens} tokens per turn`);
    for (const warning of tool.warnings) stdout.push(`  warning: ${warning}`);
    for (const note of tool.notes) if (!shared.has(note)) stdout.push(`  note: ${note}`);
  }
  for (const message of refused) stdout.push(`refused: ${message}`);
  stdout.push(
    `total: ${totalTokens} tokens per turn for ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'}` +
      (refused.length === 0 ? '' : `; ${refused.length} refused`),
  );
  const warned = tools.filter((tool) => tool.warnings.length > 0).length;
  const warnings = tools.reduce((sum, tool) => sum + tool.warnings.length, 0);
  const reasons = [
    ...(warned === 0
      ? []
      : [`${warned} of ${tools.length} tools have lint warnings (${warnings} in all, listed above)`]),
    ...(refused.length === 0 ? [] : [`${refused.length} refused (listed above)`]),
  ];
  return { exitCode, stdout, stderr: reasons.length === 0 ? [] : [`exit 1: ${reasons.join('; ')}`] };
}

/** Notes that two or more tools share, with how many tools carry each. */
function sharedNotes(notesPerTool: readonly (readonly string[])[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const notes of notesPerTool) for (const note of new Set(notes)) counts.set(note, (counts.get(note) ?? 0) + 1);
  return new Map([...counts].filter(([, count]) => count > 1));
}

function tierReason(tool: MountedMcpTool): string {
  const { tier } = tool;
  if (tier.sideEffect !== tier.fromAnnotations) return `configured; annotations say ${tier.fromAnnotations}`;
  switch (tier.sideEffect) {
    case 'read':
      return 'readOnlyHint';
    case 'reversible':
      return 'destructiveHint: false';
    default:
      return 'neither readOnlyHint nor destructiveHint: false';
  }
}
