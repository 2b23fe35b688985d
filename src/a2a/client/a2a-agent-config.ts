import { InputFileError } from '../../errors/input-file-error.js';
import { parseToolOverrides, positiveSetting, readConfigJson } from '../../mcp/client/mcp-server-config.js';
import type { SideEffect } from '../../tools/tool-types.js';
import { isRecord } from '../../util/is-record.js';

/** What arbiter does with one skill of the agent, by the skill's id on its Agent Card. */
export interface A2aSkillOverride {
  /**
   * The tier to give the skill's tool. Without `trusted: true` on the agent,
   * anything less strict than `irreversible` is ignored (a remote agent may
   * do anything a message asks; config can only add caution).
   */
  readonly sideEffect?: SideEffect;
  /** Per-call time limit in milliseconds; default the agent's `timeoutMs`. */
  readonly timeoutMs?: number;
  /** Leave the skill out. */
  readonly disabled?: boolean;
}

/**
 * Another agent to call over A2A, found from its Agent Card. Each skill on
 * the card becomes a tool `<name>_<skill>` taking `{ "message": "…" }`.
 */
export interface A2aAgentConfig {
  /** The prefix of its tools: letters, digits, `_` and `-`, starting with a letter, at most 24 characters. */
  readonly name: string;
  /** The Agent Card's URL, e.g. `https://billing.example.com/.well-known/agent-card.json`. */
  readonly agentCard: string;
  /** Sent with every request (the card's too), e.g. `{ "X-Api-Key": "…" }`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Shorthand for `Authorization: Bearer TOKEN`. */
  readonly bearer?: string;
  /**
   * Trust the agent: config may then give a skill a tier less strict than
   * `irreversible`, its answers count as content (an untrusted agent's mark
   * the conversation, after which egress calls wait for a person), and the
   * model is shown what the agent says when a task does not complete.
   */
  readonly trusted?: boolean;
  /** Default per-call time limit in milliseconds. Default 120 000. */
  readonly timeoutMs?: number;
  /** Per skill (by id): tier, time limit, or left out. */
  readonly skills?: Readonly<Record<string, A2aSkillOverride>>;
  /**
   * Origins besides the card's own (`https://rpc.example.com`) that its
   * requests may go to: an endpoint the card names there, or a redirect of
   * the card there. Requests (and so the headers and bearer) go nowhere
   * else: a card naming another origin's endpoint is not mounted, a
   * redirect to one is not followed.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * The agent treats a repeated `messageId` as the same message (answers
   * with the task the first send started, acts once), as an arbiter agent
   * does. The A2A spec does not ask it of agents, and the SDK's default
   * handler starts a task per message, so it is off by default: a write
   * call whose answer was lost is then never sent again; the agent is asked
   * (`reconcileA2aCall`), a completed task is the call's result, anything
   * else waits for a person. With it on, a call the agent shows no
   * completed task for is sent again with the same `messageId`.
   */
  readonly deduplicatesMessageIds?: boolean;
}

const agentName = /^[a-zA-Z][a-zA-Z0-9_-]{0,23}$/;
const agentKeys = new Set([
  'name',
  'agentCard',
  'headers',
  'bearer',
  'trusted',
  'timeoutMs',
  'skills',
  'allowedOrigins',
  'deduplicatesMessageIds',
]);

/**
 * Reads the A2A agents of a tool-servers config file (`arbiter serve --mcp
 * FILE`): the entries of its JSON array that have an `agentCard`, next to
 * the MCP servers (`readMcpConfig` reads those). Strings may name
 * environment variables as `${VAR}`; a variable that is not set is an
 * error, as is any setting arbiter does not know, each on one line naming
 * the entry and the field:
 *
 * ```json
 * [
 *   { "name": "files", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/share"] },
 *   { "name": "billing", "agentCard": "https://billing.example.com/.well-known/agent-card.json",
 *     "bearer": "${BILLING_TOKEN}", "skills": { "query_order": { "sideEffect": "read" } } }
 * ]
 * ```
 *
 * @example
 * const agents = await readA2aConfig({ file: 'mcp.json' });
 */
export async function readA2aConfig({
  file,
  environment = process.env,
}: {
  file: string;
  environment?: Readonly<Record<string, string | undefined>>;
}): Promise<A2aAgentConfig[]> {
  return parseA2aConfig({ value: await readConfigJson(file), file, environment });
}

/**
 * Checks the A2A agents of a config already parsed from JSON (see
 * `readA2aConfig`); entries without `agentCard` are MCP servers and left to
 * `parseMcpConfig`, but no agent may share a name with one.
 *
 * @example
 * parseA2aConfig({ value: [{ name: 'billing', agentCard: 'http://127.0.0.1:8787/.well-known/agent-card.json' }], file: 'inline' });
 */
export function parseA2aConfig({
  value,
  file,
  environment = process.env,
}: {
  value: unknown;
  file: string;
  environment?: Readonly<Record<string, string | undefined>>;
}): A2aAgentConfig[] {
  const fail = (problem: string): never => {
    throw new InputFileError({ file, problem });
  };
  if (!Array.isArray(value)) return fail('must be a JSON array of servers and agents: [{ "name": "…", … }]');
  const otherNames = value.flatMap((entry: unknown) =>
    isRecord(entry) && entry['agentCard'] === undefined ? [entry['name']] : [],
  );
  const names = new Set<unknown>();
  const agents: A2aAgentConfig[] = [];
  for (const [index, entry] of (value as unknown[]).entries()) {
    if (!isRecord(entry) || entry['agentCard'] === undefined) continue;
    const name = entry['name'];
    if (typeof name !== 'string' || !agentName.test(name)) {
      fail(
        `agent ${index + 1}: "name" must be 1-24 letters, digits, _ or -, starting with a letter (it prefixes the tool names), got ${JSON.stringify(name)}`,
      );
    }
    const where = `agent "${name}"`;
    if (names.has(name) || otherNames.includes(name)) fail(`${where}: the name is listed twice`);
    names.add(name);
    const unknown = Object.keys(entry).filter((key) => !agentKeys.has(key));
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
    const agentCard = expand(entry['agentCard'], 'agentCard');
    if (!/^https?:\/\/./.test(agentCard)) fail(`${where}: "agentCard" must be the http(s) URL of its Agent Card`);
    const headers = entry['headers'];
    if (headers !== undefined && !isRecord(headers)) fail(`${where}: "headers" must be an object of strings`);
    const expandedHeaders = isRecord(headers)
      ? Object.fromEntries(Object.entries(headers).map(([key, text]) => [key, expand(text, `headers.${key}`)]))
      : undefined;
    const bearer = entry['bearer'] === undefined ? undefined : expand(entry['bearer'], 'bearer');
    const trusted = entry['trusted'];
    if (trusted !== undefined && typeof trusted !== 'boolean') fail(`${where}: "trusted" must be true or false`);
    const timeoutMs = positiveSetting(entry['timeoutMs'], `${where}: "timeoutMs"`, fail);
    const skills = parseToolOverrides({ value: entry['skills'], field: 'skills', names: 'skill ids', where, fail });
    const deduplicates = entry['deduplicatesMessageIds'];
    if (deduplicates !== undefined && typeof deduplicates !== 'boolean') {
      fail(`${where}: "deduplicatesMessageIds" must be true or false`);
    }
    const origins = entry['allowedOrigins'];
    const allowedOrigins =
      origins === undefined
        ? undefined
        : Array.isArray(origins)
          ? origins.map(
              (origin: unknown, at) =>
                httpOrigin(expand(origin, `allowedOrigins.${at}`)) ??
                fail(
                  `${where}: "allowedOrigins" must list http(s) origins such as "https://rpc.example.com" (no path), got ${JSON.stringify(origin)}`,
                ),
            )
          : fail(`${where}: "allowedOrigins" must be a list of http(s) origins such as ["https://rpc.example.com"]`);
    agents.push({
      name: name as string,
      agentCard,
      ...(expandedHeaders === undefined ? {} : { headers: expandedHeaders }),
      ...(bearer === undefined ? {} : { bearer }),
      ...(trusted === true ? { trusted: true } : {}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(skills === undefined ? {} : { skills }),
      ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
      ...(deduplicates === true ? { deduplicatesMessageIds: true } : {}),
    });
  }
  return agents;
}

/** `text` as an origin when it is one (`https://host[:port]`, nothing after but an optional `/`). */
function httpOrigin(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const bare =
    url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  return bare ? url.origin : undefined;
}
