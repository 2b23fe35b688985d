import { readFile } from 'node:fs/promises';
import type { Principal } from '../../core/principal.js';
import { InputFileError } from '../../errors/input-file-error.js';
import type { SideEffect } from '../../tools/tool-types.js';
import { isRecord } from '../../util/is-record.js';

/** Credentials added to one connection: HTTP headers (Streamable HTTP) or environment variables (stdio). */
export interface McpCredentials {
  /** Sent with every HTTP request of the connection, e.g. `{ "X-Api-Key": "…" }`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Shorthand for `Authorization: Bearer TOKEN`. */
  readonly bearer?: string;
  /** Added to the server process's environment (stdio). */
  readonly env?: Readonly<Record<string, string>>;
}

/** What arbiter does with one of the server's tools, by the tool's MCP name. */
export interface McpToolOverride {
  /**
   * The tier to give the tool. Without `trusted: true` on the server, a tier
   * less strict than the annotations imply is ignored (annotations are a
   * third party's hints; config can only add caution).
   */
  readonly sideEffect?: SideEffect;
  /** Per-call time limit in milliseconds; default the server's `timeoutMs`. */
  readonly timeoutMs?: number;
  /** Leave the tool out. */
  readonly disabled?: boolean;
}

/**
 * One MCP server to mount: started by `command` (stdio) or reached at `url`
 * (Streamable HTTP). Its tools are registered as `<name>_<tool>`.
 */
export interface McpServerConfig {
  /** The prefix of its tools: letters, digits, `_` and `-`, starting with a letter, at most 24 characters. */
  readonly name: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Streamable HTTP endpoint, e.g. `https://mcp.example.com/mcp`. */
  readonly url?: string;
  /** Credentials of the shared connection (and of tool listing, when `perPrincipal` is set). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly bearer?: string;
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The server needs per-user credentials: every principal gets a connection
   * of its own, opened with what this returns for it (a config file gives a
   * map from `tenantId/userId`). A principal it returns nothing for cannot
   * call the server's tools; no call ever borrows another principal's
   * connection or the shared one. Tools are listed over a connection with
   * the server-level credentials only.
   */
  readonly perPrincipal?: (principal: Principal) => McpCredentials | undefined;
  /**
   * Trust the server: its annotations enough to let config make a tool less
   * strict than they say, and its results as content (an untrusted server's
   * results mark the conversation, after which egress calls wait for a person).
   */
  readonly trusted?: boolean;
  /** Default per-call time limit in milliseconds. Default 60 000. */
  readonly timeoutMs?: number;
  /** Per tool (by MCP name): tier, time limit, or left out. */
  readonly tools?: Readonly<Record<string, McpToolOverride>>;
  /** Per-principal connections kept open at once; the least recently used is closed beyond it. Default 32. */
  readonly maxConnections?: number;
  /**
   * Speak this protocol revision only, without offering the other first.
   * Default: offer 2026-07-28 (`server/discover`) and fall back to the 2025
   * `initialize` handshake, which over stdio starts the server a second,
   * short-lived time for the offer; a pinned revision saves that.
   */
  readonly protocolVersion?: McpProtocolVersion;
}

/** The protocol revisions a server can be pinned to. */
export type McpProtocolVersion = '2025-11-25' | '2026-07-28';
const protocolVersions: readonly McpProtocolVersion[] = ['2025-11-25', '2026-07-28'];

const serverName = /^[a-zA-Z][a-zA-Z0-9_-]{0,23}$/;
const sideEffects: readonly SideEffect[] = ['read', 'reversible', 'irreversible'];
const configKeys = new Set([
  'name',
  'command',
  'args',
  'cwd',
  'url',
  'headers',
  'bearer',
  'env',
  'perPrincipal',
  'trusted',
  'timeoutMs',
  'tools',
  'maxConnections',
  'protocolVersion',
]);

/**
 * Reads an MCP config file (`arbiter serve --mcp FILE`): a JSON array of
 * servers (entries with an `agentCard` are A2A agents, which `readA2aConfig`
 * reads). Strings may name environment variables as `${VAR}`, so tokens
 * stay out of the file; a variable that is not set is an error. Per-user
 * credentials are a map from `tenantId/userId`:
 *
 * ```json
 * [
 *   { "name": "files", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/share"] },
 *   { "name": "crm", "url": "https://crm.example.com/mcp",
 *     "perPrincipal": { "acme/C1001": { "bearer": "${CRM_TOKEN_C1001}" } },
 *     "tools": { "delete_contact": { "timeoutMs": 5000 }, "find_contact": { "sideEffect": "read" } } }
 * ]
 * ```
 *
 * @example
 * const servers = await readMcpConfig({ file: 'mcp.json' });
 */
export async function readMcpConfig({
  file,
  environment = process.env,
}: {
  file: string;
  environment?: Readonly<Record<string, string | undefined>>;
}): Promise<McpServerConfig[]> {
  return parseMcpConfig({ value: await readConfigJson(file), file, environment });
}

/**
 * The JSON of a config file (MCP servers and A2A agents share one): a file
 * that cannot be read or is not JSON is an `InputFileError` naming it.
 *
 * @example
 * const value = await readConfigJson('mcp.json');
 */
export async function readConfigJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputFileError({ file, problem: 'cannot be read', cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputFileError({ file, problem: 'is not valid JSON', cause: error });
  }
  return value;
}

/**
 * Checks an MCP config already parsed from JSON (see `readMcpConfig`).
 *
 * @example
 * parseMcpConfig({ value: [{ name: 'everything', command: 'mcp-server-everything' }], file: 'inline' });
 */
export function parseMcpConfig({
  value,
  file,
  environment = process.env,
}: {
  value: unknown;
  file: string;
  environment?: Readonly<Record<string, string | undefined>>;
}): McpServerConfig[] {
  const fail = (problem: string): never => {
    throw new InputFileError({ file, problem });
  };
  if (!Array.isArray(value)) return fail('must be a JSON array of servers: [{ "name": "…", "command": "…" }]');
  const names = new Set<string>();
  const servers: McpServerConfig[] = [];
  for (const [index, entry] of (value as unknown[]).entries()) {
    const at = `server ${index + 1}`;
    if (!isRecord(entry)) return fail(`${at} must be an object`);
    // An A2A agent, read by `parseA2aConfig`.
    if (entry['agentCard'] !== undefined) continue;
    const name = entry['name'];
    if (typeof name !== 'string' || !serverName.test(name)) {
      return fail(
        `${at}: "name" must be 1-24 letters, digits, _ or -, starting with a letter (it prefixes the tool names), got ${JSON.stringify(name)}`,
      );
    }
    const where = `server "${name}"`;
    if (names.has(name)) fail(`${where} is listed twice`);
    names.add(name);
    const unknown = Object.keys(entry).filter((key) => !configKeys.has(key));
    if (unknown.length > 0) fail(`${where}: unknown setting ${unknown.map((key) => `"${key}"`).join(', ')}`);
    const expand = (text: unknown, setting: string): string => {
      if (typeof text !== 'string') return fail(`${where}: "${setting}" must be a string`);
      return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, variable: string) => {
        const found = environment[variable];
        return found === undefined || found === ''
          ? fail(`${where}: "${setting}" names environment variable ${variable}, which is not set`)
          : found;
      });
    };
    const stringMap = (map: unknown, setting: string): Record<string, string> | undefined => {
      if (map === undefined) return undefined;
      if (!isRecord(map)) return fail(`${where}: "${setting}" must be an object of strings`);
      return Object.fromEntries(
        Object.entries(map).map(([key, text]) => [key, expand(text, `${setting}.${key}`)] as const),
      );
    };
    const credentials = (source: Record<string, unknown>, setting: string): McpCredentials => {
      const headers = stringMap(source['headers'], `${setting}headers`);
      const env = stringMap(source['env'], `${setting}env`);
      const bearer = source['bearer'] === undefined ? undefined : expand(source['bearer'], `${setting}bearer`);
      return {
        ...(headers === undefined ? {} : { headers }),
        ...(env === undefined ? {} : { env }),
        ...(bearer === undefined ? {} : { bearer }),
      };
    };
    const command = entry['command'];
    const url = entry['url'];
    if ((command === undefined) === (url === undefined)) fail(`${where} needs either "command" (stdio) or "url"`);
    if (command !== undefined && (typeof command !== 'string' || command.trim() === '')) {
      fail(`${where}: "command" must be a non-empty string`);
    }
    let checkedUrl: string | undefined;
    if (url !== undefined) {
      checkedUrl = expand(url, 'url');
      if (!/^https?:\/\/./.test(checkedUrl)) fail(`${where}: "url" must be an http(s) URL`);
    }
    const args = entry['args'];
    if (args !== undefined && !(Array.isArray(args) && args.every((arg) => typeof arg === 'string'))) {
      fail(`${where}: "args" must be an array of strings`);
    }
    const timeoutMs = positiveSetting(entry['timeoutMs'], `${where}: "timeoutMs"`, fail);
    const maxConnections = positiveSetting(entry['maxConnections'], `${where}: "maxConnections"`, fail);
    const trusted = entry['trusted'];
    if (trusted !== undefined && typeof trusted !== 'boolean') fail(`${where}: "trusted" must be true or false`);
    const protocolVersion = entry['protocolVersion'];
    if (protocolVersion !== undefined && !protocolVersions.includes(protocolVersion as McpProtocolVersion)) {
      fail(`${where}: "protocolVersion" must be ${protocolVersions.map((version) => `"${version}"`).join(' or ')}`);
    }
    const tools = parseToolOverrides({ value: entry['tools'], field: 'tools', names: 'tool names', where, fail });
    const perPrincipalMap = entry['perPrincipal'];
    let perPrincipal: McpServerConfig['perPrincipal'];
    if (perPrincipalMap !== undefined) {
      if (!isRecord(perPrincipalMap)) {
        return fail(`${where}: "perPrincipal" must map "tenantId/userId" to { "bearer", "headers", "env" }`);
      }
      const byPrincipal = new Map<string, McpCredentials>();
      for (const [key, given] of Object.entries(perPrincipalMap)) {
        if (!/^[^/]+\/[^/]+$/.test(key)) fail(`${where}: "perPrincipal" key "${key}" must be "tenantId/userId"`);
        if (!isRecord(given)) return fail(`${where}: "perPrincipal.${key}" must be an object`);
        byPrincipal.set(key, credentials(given, `perPrincipal.${key}.`));
      }
      perPrincipal = (principal) => byPrincipal.get(`${principal.tenantId}/${principal.userId}`);
    }
    const shared = credentials(entry, '');
    const cwd = entry['cwd'] === undefined ? undefined : expand(entry['cwd'], 'cwd');
    servers.push({
      name,
      ...(typeof command === 'string' ? { command: expand(command, 'command') } : {}),
      ...(Array.isArray(args) ? { args: args.map((arg, position) => expand(arg, `args[${position}]`)) } : {}),
      ...(cwd === undefined ? {} : { cwd }),
      ...(checkedUrl === undefined ? {} : { url: checkedUrl }),
      ...shared,
      ...(perPrincipal === undefined ? {} : { perPrincipal }),
      ...(trusted === true ? { trusted: true } : {}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxConnections === undefined ? {} : { maxConnections }),
      ...(protocolVersion === undefined ? {} : { protocolVersion: protocolVersion as McpProtocolVersion }),
      ...(tools === undefined ? {} : { tools }),
    });
  }
  return servers;
}

/**
 * The per-tool settings of a config entry (`tools` of an MCP server,
 * `skills` of an A2A agent): each name maps to `sideEffect`, `timeoutMs`
 * and `disabled`, anything else a one-line error naming the field.
 *
 * @example
 * const skills = parseToolOverrides({ value: entry['skills'], field: 'skills', names: 'skill ids', where, fail });
 */
export function parseToolOverrides({
  value,
  field,
  names,
  where,
  fail,
}: {
  value: unknown;
  /** The entry's key, e.g. `tools`. */
  field: string;
  /** What the keys are, in the error, e.g. `tool names`. */
  names: string;
  where: string;
  fail: (problem: string) => never;
}): Record<string, McpToolOverride> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value))
    return fail(`${where}: "${field}" must map ${names} to { "sideEffect", "timeoutMs", "disabled" }`);
  const overrides: Record<string, McpToolOverride> = {};
  for (const [tool, override] of Object.entries(value)) {
    const setting = `${where}: "${field}.${tool}`;
    if (!isRecord(override)) return fail(`${setting}" must be an object`);
    const unknown = Object.keys(override).filter((key) => !['sideEffect', 'timeoutMs', 'disabled'].includes(key));
    if (unknown.length > 0) fail(`${setting}" has unknown setting ${unknown.join(', ')}`);
    const sideEffect = override['sideEffect'];
    if (sideEffect !== undefined && !sideEffects.includes(sideEffect as SideEffect)) {
      fail(`${setting}.sideEffect" must be one of ${sideEffects.join(', ')}`);
    }
    const timeoutMs = positiveSetting(override['timeoutMs'], `${setting}.timeoutMs"`, fail);
    const disabled = override['disabled'];
    if (disabled !== undefined && typeof disabled !== 'boolean') fail(`${setting}.disabled" must be true or false`);
    overrides[tool] = {
      ...(sideEffect === undefined ? {} : { sideEffect: sideEffect as SideEffect }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(disabled === true ? { disabled: true } : {}),
    };
  }
  return overrides;
}

/** A setting that must be a whole number from 1 when given. */
export function positiveSetting(value: unknown, setting: string, fail: (problem: string) => never): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    return fail(`${setting} must be a whole number from 1`);
  }
  return value;
}
