import type { Awaitable } from '../core/awaitable.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { ServerRun, ServerRunStatus } from '../store/server-run.js';
import { sha256Hex } from '../util/sha256.js';

/** Every run id of another framework's loop starts so; nothing else arbiter makes does. */
const externalRunPrefix = 'ext_';

/** The loops arbiter's gate runs inside. */
export type ExternalLoop = 'ai_sdk' | 'openai_agents';

/**
 * The run an outside loop's tool calls belong to: one per loop, tenant,
 * user and conversation, so an approval is bound to its requester's run
 * (a client that names another conversation only reaches another run of
 * its own), the audit groups a conversation's calls, and the same call of
 * another principal is another run's, with its own approval.
 *
 * @example
 * externalRunId({ loop: 'ai_sdk', principal, conversationId: chatId }); // 'ext_5c0f…'
 */
export function externalRunId({
  loop,
  principal,
  conversationId,
}: {
  loop: ExternalLoop;
  principal: Principal;
  /** The application's conversation (a chat id, a thread id); absent: one run per principal. */
  conversationId?: string | undefined;
}): string {
  // JSON of the tuple: no ids, whatever characters they hold, make another tuple's text.
  const identity = JSON.stringify([loop, principal.tenantId, principal.userId, conversationId ?? null]);
  // The tool set is built per request, mostly for the conversation of the request before: the last id is kept.
  if (identity === lastRun.identity) return lastRun.runId;
  const runId = `${externalRunPrefix}${sha256Hex(identity).slice(0, 32)}`;
  lastRun = { identity, runId };
  return runId;
}

/** The last identity hashed and its run id. */
let lastRun: { readonly identity: string; readonly runId: string } = { identity: '', runId: '' };

/**
 * Whether a run belongs to another framework's loop: it has no session and
 * no model of arbiter's, so nothing resumes it after an approval; the
 * outside loop executes the call again and arbiter lets it through once.
 *
 * @example
 * if (!isExternalRunId(run.runId)) manager.resume({ runId: run.runId });
 */
export function isExternalRunId(runId: string): boolean {
  return runId.startsWith(externalRunPrefix) && /^[0-9a-f]{32}$/.test(runId.slice(externalRunPrefix.length));
}

/** Where the server's runs are recorded (`ServerRuns` on SQLite): what a run of an outside caller needs of it. */
export interface ExternalRunRecords {
  insert(run: Omit<ServerRun, 'startedAt' | 'updatedAt' | 'status' | 'failure'>): ServerRun;
  setStatus(runId: string, status: ServerRunStatus): void;
  find(runId: string): Awaitable<ServerRun | undefined>;
}

/**
 * Makes sure a run of an outside caller (an MCP client, another
 * framework's loop) is recorded with its tenant and principal: the
 * approval routes read them to keep other tenants out and to apply the
 * four-eyes rule. Its session id is the run id (no session exists); it is
 * recorded `completed`, so start-up recovery leaves it be.
 *
 * @example
 * await recordExternalRun({ runs, runId, principal, locale: 'en' });
 */
export async function recordExternalRun({
  runs,
  runId,
  principal,
  locale,
}: {
  runs: ExternalRunRecords;
  runId: string;
  principal: Principal;
  locale: Locale;
}): Promise<string> {
  if ((await runs.find(runId)) !== undefined) return runId;
  try {
    runs.insert({
      runId,
      sessionId: runId,
      tenantId: principal.tenantId,
      principal: { tenantId: principal.tenantId, userId: principal.userId, roles: [...principal.roles] },
      locale,
      messageOffset: 0,
    });
  } catch (error) {
    // Another call of the same principal recorded it first.
    if ((await runs.find(runId)) === undefined) throw error;
    return runId;
  }
  runs.setStatus(runId, 'completed');
  return runId;
}
