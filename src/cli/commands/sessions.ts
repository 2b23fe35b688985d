import { parseArgs } from 'node:util';
import { redactConversation } from '../../context/redact-conversation.js';
import type { ChatMessage } from '../../core/chat-message.js';
import { AmbiguousIdError } from '../../errors/ambiguous-id-error.js';
import { ArbiterError } from '../../errors/arbiter-error.js';
import { UsageError } from '../../errors/usage-error.js';
import type { Session, SessionStore, SessionSummary } from '../../store/session-store.js';
import type { ToolSet } from '../../tools/tool-registry.js';
import { redact } from '../../util/redact.js';
import type { CommandResult } from '../cli-output.js';
import { sessionsUsage } from '../command-usage.js';
import { formatTable, type TableColumn } from '../format-table.js';
import { readToolsFile } from '../read-input-file.js';
import { resolveIdPrefix } from '../resolve-id-prefix.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation, storeOptions } from './store-location.js';

/** Where `arbiter` keeps its store unless `--data-dir` says otherwise. */
export const defaultDataDirectory = '.arbiter';
/** A message line in `sessions show` keeps this many characters unless `--full`. */
const shownCharacters = 160;

/** What the `sessions` commands may be given besides flags: the application's tools. */
export interface SessionsEnvironment {
  /**
   * The tools registered now: names to flag stale tool names in a history,
   * `sensitive` marks to redact. `--tools FILE` adds names.
   */
  readonly tools?: Pick<ToolSet, 'names' | 'get'>;
}

/**
 * `arbiter sessions …`: parses the subcommand and its flags and runs it.
 * Exit 0 done, 1 the session does not exist or the request cannot be done
 * (a fork point inside a tool call), 2 bad usage (e.g. `fork` without
 * `--at`) or input file.
 *
 * @example
 * const result = await sessionsCommand({ args: ['show', 'abc', '--redact'], environment: { tools: registry } });
 */
export async function sessionsCommand({
  args,
  environment = {},
}: {
  args: readonly string[];
  environment?: SessionsEnvironment;
}): Promise<CommandResult> {
  const [subcommand, ...rest] = args;
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: {
        ...storeOptions,
        limit: { type: 'string' },
        json: { type: 'boolean', default: false },
        redact: { type: 'boolean', default: false },
        'no-redact': { type: 'boolean', default: false },
        sensitive: { type: 'string' },
        tools: { type: 'string' },
        full: { type: 'boolean', default: false },
        at: { type: 'string' },
        'older-than': { type: 'string' },
        expired: { type: 'boolean', default: false },
      },
    });
    const dataDirectory = values['data-dir'];
    const store = values.store;
    const sessionId = positionals[0];
    const sensitive = (values.sensitive ?? '').split(',').filter((field) => field !== '');
    const toolNames = [
      ...(environment.tools?.names ?? []),
      ...(values.tools === undefined ? [] : readToolsFile({ path: values.tools }).map((tool) => tool.function.name)),
    ];
    const knownTools = environment.tools !== undefined || values.tools !== undefined ? toolNames : undefined;
    switch (subcommand) {
      case 'list':
        return await listSessions({
          dataDirectory,
          store,
          limit: parseCount(values.limit, '--limit') ?? 50,
          json: values.json,
        });
      case 'show':
        if (sessionId === undefined) return usage('sessions show needs a session ID');
        return await showSession({
          dataDirectory,
          store,
          sessionId,
          redact: values.redact,
          sensitive,
          full: values.full,
          json: values.json,
          ...(knownTools === undefined ? {} : { toolNames: knownTools }),
          ...(environment.tools === undefined ? {} : { tools: environment.tools }),
        });
      case 'export':
        if (sessionId === undefined) return usage('sessions export needs a session ID');
        return await exportSession({
          dataDirectory,
          store,
          sessionId,
          redact: !values['no-redact'],
          sensitive,
          ...(knownTools === undefined ? {} : { toolNames: knownTools }),
          ...(environment.tools === undefined ? {} : { tools: environment.tools }),
        });
      case 'fork': {
        if (sessionId === undefined) return usage('sessions fork needs a session ID');
        const atMessage = parseCount(values.at, '--at');
        if (atMessage === undefined) {
          return usage(
            'sessions fork needs --at N: the new session keeps messages 0 to N-1 (`sessions show ID` numbers them)',
          );
        }
        return await forkSession({ dataDirectory, store, sessionId, atMessage });
      }
      case 'purge': {
        const olderThanDays = parseCount(values['older-than'], '--older-than');
        if (olderThanDays === undefined && !values.expired)
          return usage('sessions purge needs --older-than DAYS or --expired');
        return await purgeSessions({
          dataDirectory,
          store,
          expired: values.expired,
          ...(olderThanDays === undefined ? {} : { olderThanDays }),
        });
      }
      default:
        return usage(subcommand === undefined ? 'sessions needs a subcommand' : `unknown subcommand "${subcommand}"`);
    }
  } catch (error) {
    if (UsageError.isInstance(error)) return usage(error.message);
    if (
      ArbiterError.isInstance(error) ||
      (error instanceof Error && String(Reflect.get(error, 'code')).startsWith('ERR_PARSE_ARGS'))
    ) {
      return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
    }
    throw error;
  }
}

/**
 * `sessions list`: one line per session, most recently updated first.
 *
 * @example
 * await listSessions({ dataDirectory: '.arbiter' });
 */
export async function listSessions({
  dataDirectory = defaultDataDirectory,
  store,
  limit = 50,
  json = false,
}: {
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  limit?: number;
  json?: boolean;
}): Promise<CommandResult> {
  return withStore({ dataDirectory, store }, async (sessions, where) => {
    const summaries = await sessions.list({ limit });
    if (json) return done(summaries.map((summary) => JSON.stringify(summary)));
    if (summaries.length === 0) return done([`no sessions in ${where}`]);
    return done(formatTable({ columns: listColumns, rows: summaries.map(listRow) }));
  });
}

/**
 * `sessions show ID`: the session's state and messages, one line each.
 * With `toolNames`, calls to tools no longer registered are flagged; with
 * `redact`, sensitive fields are blanked.
 *
 * @example
 * await showSession({ sessionId, redact: true, toolNames: registry.names, tools: registry });
 */
export async function showSession({
  dataDirectory = defaultDataDirectory,
  store,
  sessionId,
  redact: redacting = false,
  sensitive = [],
  toolNames,
  tools,
  full = false,
  json = false,
}: {
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  sessionId: string;
  redact?: boolean;
  sensitive?: readonly string[];
  toolNames?: readonly string[];
  tools?: Pick<ToolSet, 'get'>;
  full?: boolean;
  json?: boolean;
}): Promise<CommandResult> {
  return withStore({ dataDirectory, store }, async (sessions) => {
    const loaded = await loadForDisplay({ sessions, sessionId, redacting, sensitive, toolNames, tools });
    if (loaded === undefined) return missing(sessionId);
    const { session, shown, stale } = loaded;
    if (json) return done([JSON.stringify({ ...shown, ...(stale === undefined ? {} : { staleTools: stale }) })]);
    const staleNames = new Set(stale?.map((entry) => entry.name));
    const lines = [
      `session   ${session.id}${session.forkedFrom === undefined ? '' : ` (forked from ${session.forkedFrom} at message ${session.forkedAt})`}`,
      `status    ${session.status}${session.activeRun === undefined ? '' : ` (run ${session.activeRun.runId}, ${session.activeRun.steps} steps, ${session.activeRun.usage.totalTokens} tokens so far)`}`,
      `counters  ${session.stepCount} steps, ${session.usage.inputTokens} input + ${session.usage.outputTokens} output tokens, version ${session.version}`,
      `times     created ${iso(session.createdAt)}, updated ${iso(session.updatedAt)}${session.expiresAt === undefined ? '' : `, expires ${iso(session.expiresAt)}`}`,
      `slots     ${JSON.stringify(shown.slots)}`,
      `messages  ${session.messages.length}`,
      ...shown.messages.flatMap((message, index) => messageLines({ message, index, full, staleNames })),
    ];
    if (stale !== undefined && stale.length > 0) {
      lines.push(
        `stale     ${stale.map((entry) => `${entry.name} (${entry.calls} call${entry.calls === 1 ? '' : 's'})`).join(', ')}: no longer registered; the loop answers such calls with the current tools`,
      );
    } else if (stale === undefined) {
      lines.push('(pass --tools FILE to flag tool names that are no longer registered)');
    }
    return done(lines);
  });
}

/**
 * `sessions export ID`: the session as one JSON document, redacted unless
 * `redact: false`: what may leave the live conversation.
 *
 * @example
 * const { stdout } = await exportSession({ sessionId, tools: registry });
 */
export async function exportSession({
  dataDirectory = defaultDataDirectory,
  store,
  sessionId,
  redact: redacting = true,
  sensitive = [],
  toolNames,
  tools,
}: {
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  sessionId: string;
  redact?: boolean;
  sensitive?: readonly string[];
  toolNames?: readonly string[];
  tools?: Pick<ToolSet, 'get'>;
}): Promise<CommandResult> {
  return withStore({ dataDirectory, store }, async (sessions) => {
    const loaded = await loadForDisplay({ sessions, sessionId, redacting, sensitive, toolNames, tools });
    if (loaded === undefined) return missing(sessionId);
    const { shown, stale } = loaded;
    return done([
      JSON.stringify({ ...shown, redacted: redacting, ...(stale === undefined ? {} : { staleTools: stale }) }, null, 2),
    ]);
  });
}

/**
 * `sessions fork ID --at N`: a new session with messages `[0, N)`.
 *
 * @example
 * await forkSession({ sessionId, atMessage: 4 });
 */
export async function forkSession({
  dataDirectory = defaultDataDirectory,
  store,
  sessionId,
  atMessage,
}: {
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  sessionId: string;
  atMessage?: number;
}): Promise<CommandResult> {
  return withStore({ dataDirectory, store }, async (sessions) => {
    const resolved = await resolveSessionId(sessions, sessionId);
    if ((await sessions.load(resolved)) === undefined) return missing(sessionId);
    try {
      const fork = await sessions.fork({ sessionId: resolved, ...(atMessage === undefined ? {} : { atMessage }) });
      return done([
        `forked ${resolved} at message ${fork.forkedAt}: new session ${fork.id} (${fork.messages.length} messages)`,
      ]);
    } catch (error) {
      if (ArbiterError.isInstance(error) && error.code === 'invalid_fork_point') {
        return { exitCode: 1, stdout: [], stderr: [`arbiter: ${error.message}`] };
      }
      throw error;
    }
  });
}

/**
 * `sessions purge`: deletes sessions idle for `olderThanDays`, and with
 * `expired` those past their TTL.
 *
 * @example
 * await purgeSessions({ olderThanDays: 30, expired: true });
 */
export async function purgeSessions({
  dataDirectory = defaultDataDirectory,
  store,
  olderThanDays,
  expired = false,
}: {
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  olderThanDays?: number;
  expired?: boolean;
}): Promise<CommandResult> {
  return withStore({ dataDirectory, store }, async (sessions) => {
    const { sessionIds } = await sessions.purge({ expired, ...(olderThanDays === undefined ? {} : { olderThanDays }) });
    return done([`purged ${sessionIds.length} session${sessionIds.length === 1 ? '' : 's'}`, ...sessionIds]);
  });
}

/** A tool name a history calls that the current registry does not have. */
export interface StaleToolName {
  readonly name: string;
  readonly calls: number;
  /** Positions of the assistant messages that call it. */
  readonly messages: readonly number[];
}

/**
 * The tool names a conversation calls that are not registered now: a
 * resumed or forked session made under older tools. Such a history still
 * works (the loop answers a call to an unknown tool with the current tools);
 * this says where it happened.
 *
 * @example
 * findStaleToolNames({ messages: session.messages, toolNames: registry.names });
 * // [{ name: 'lookup_order', calls: 2, messages: [1, 5] }]
 */
export function findStaleToolNames({
  messages,
  toolNames,
}: {
  messages: readonly ChatMessage[];
  toolNames: readonly string[];
}): StaleToolName[] {
  const known = new Set(toolNames);
  const stale = new Map<string, { calls: number; messages: number[] }>();
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    for (const call of message.tool_calls ?? []) {
      if (known.has(call.function.name)) continue;
      const entry = stale.get(call.function.name) ?? { calls: 0, messages: [] };
      entry.calls += 1;
      if (entry.messages.at(-1) !== index) entry.messages.push(index);
      stale.set(call.function.name, entry);
    }
  });
  return [...stale].map(([name, entry]) => ({ name, ...entry }));
}

/**
 * A copy of a session fit to leave the live conversation: messages through
 * `redactConversation` (each tool's sensitive fields, and `sensitive` for
 * all), slots named in `sensitive` blanked.
 *
 * @example
 * const safe = redactSession({ session, tools: registry, sensitive: ['phone'] });
 */
export function redactSession({
  session,
  tools,
  sensitive = [],
}: {
  session: Session;
  tools?: Pick<ToolSet, 'get'>;
  sensitive?: readonly string[];
}): Session {
  return {
    ...session,
    messages: redactConversation({
      messages: session.messages,
      fields: sensitive,
      sensitiveFields: (tool) => tools?.get(tool)?.definition.sensitive ?? [],
    }),
    slots: redact(session.slots, sensitive) as Record<string, unknown>,
  };
}

function parseCount(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) {
    throw new UsageError({ message: `${flag} must be a number of 0 or more, got "${value}"` });
  }
  return number;
}

/**
 * The sessions of the store `--store`, `ARBITER_STORE_URL` or `--data-dir` names, for `work`; exit 2 with one
 * line when there is no store yet (a command creates no files).
 */
function withStore(
  { dataDirectory, store }: { dataDirectory: string; store: string | undefined },
  work: (sessions: SessionStore, where: string) => Promise<CommandResult>,
): Promise<CommandResult> {
  const location = storeLocation({ values: { 'data-dir': dataDirectory, store }, environment: process.env });
  return withBackend({
    location,
    work: async (backend, where) => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${noStoreMessage(location)}`] };
      try {
        return await work(backend.sessions, where);
      } catch (error) {
        if (!AmbiguousIdError.isInstance(error)) throw error;
        return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
      }
    },
  });
}

/** The session `given` names: its whole id, or a beginning only one session's id has (`AmbiguousIdError` if several). */
async function resolveSessionId(sessions: SessionStore, given: string): Promise<string> {
  if ((await sessions.load(given)) !== undefined) return given;
  const summaries = await sessions.list({ limit: 1_000_000 });
  return resolveIdPrefix({ given, kind: 'session', candidates: summaries.map((summary) => summary.id) });
}

function done(stdout: readonly string[]): CommandResult {
  return { exitCode: 0, stdout, stderr: [] };
}

/** A stored session as `show` and `export` print it: redacted if asked, with the tool names no longer registered. */
async function loadForDisplay({
  sessions,
  sessionId,
  redacting,
  sensitive,
  toolNames,
  tools,
}: {
  sessions: SessionStore;
  sessionId: string;
  redacting: boolean;
  sensitive: readonly string[];
  toolNames: readonly string[] | undefined;
  tools: Pick<ToolSet, 'get'> | undefined;
}) {
  const session = await sessions.load(await resolveSessionId(sessions, sessionId));
  if (session === undefined) return undefined;
  const shown = redacting ? redactSession({ session, sensitive, ...(tools === undefined ? {} : { tools }) }) : session;
  const stale = toolNames === undefined ? undefined : findStaleToolNames({ messages: session.messages, toolNames });
  return { session, shown, stale };
}

function missing(sessionId: string): CommandResult {
  return { exitCode: 1, stdout: [], stderr: [`arbiter: no session ${sessionId}`] };
}

function usage(message: string): CommandResult {
  return { exitCode: 2, stdout: [], stderr: [`arbiter: ${message}`, '', sessionsUsage] };
}

const listColumns: readonly TableColumn[] = [
  { heading: 'id' },
  { heading: 'status' },
  { heading: 'messages', align: 'right' },
  { heading: 'steps', align: 'right' },
  { heading: 'tokens', align: 'right' },
  { heading: 'version', align: 'right' },
  { heading: 'updated' },
];

function listRow(summary: SessionSummary): string[] {
  const tokens = summary.usage.inputTokens + summary.usage.outputTokens;
  return [
    summary.id,
    summary.status,
    String(summary.messageCount),
    String(summary.stepCount),
    String(tokens),
    String(summary.version),
    iso(summary.updatedAt),
  ];
}

function messageLines({
  message,
  index,
  full,
  staleNames,
}: {
  message: ChatMessage;
  index: number;
  full: boolean;
  staleNames: ReadonlySet<string>;
}): string[] {
  const number = `#${index}`.padStart(5);
  const shorten = (text: string) => {
    const flat = text.replace(/\s+/g, ' ');
    return full || flat.length <= shownCharacters ? flat : `${flat.slice(0, shownCharacters - 1)}…`;
  };
  if (message.role === 'assistant') {
    const lines = message.content ? [`${number} assistant  ${shorten(message.content)}`] : [];
    for (const call of message.tool_calls ?? []) {
      const flag = staleNames.has(call.function.name) ? '  [stale: no longer registered]' : '';
      lines.push(
        `${number} assistant  calls ${call.function.name} ${shorten(call.function.arguments)} (${call.id})${flag}`,
      );
    }
    return lines.length > 0 ? lines : [`${number} assistant  (empty)`];
  }
  if (message.role === 'tool') return [`${number} tool       (${message.tool_call_id}) ${shorten(message.content)}`];
  return [`${number} ${message.role.padEnd(10)} ${shorten(message.content)}`];
}

function iso(time: number): string {
  return new Date(time).toISOString();
}
