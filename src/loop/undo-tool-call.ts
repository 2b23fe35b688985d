import { emptyCallHistory } from '../core/call-history.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import { UndoError } from '../errors/undo-error.js';
import { bindPrincipalParameters } from '../gate/bind-principal-parameters.js';
import type { AuditRecord } from '../store/audit-rows.js';
import type { AuditStore } from '../store/backend.js';
import type { SessionStore } from '../store/session-store.js';
import type { ToolSet } from '../tools/tool-registry.js';
import type { ToolContext } from '../tools/tool-types.js';
import { argumentsHash } from '../util/sha256.js';
import { validateToolCall } from '../validation/validate-tool-call.js';

/** What was rolled back. */
export interface UndoResult {
  readonly toolCallId: string;
  readonly runId: string;
  readonly tool: string;
  /** The audit entry of the call that was undone. */
  readonly undid: AuditRecord;
}

const executed = new Set(['allowed', 'auto_approved', 'approved']);

/**
 * Rolls back one executed `reversible` call with its tool's `undo`, from
 * what the store already holds: the audit log says the call ran and with
 * which argument hash; the session holds the call's arguments and the
 * journal its result. The arguments are validated and bound to the
 * principal again and must hash to what was audited, so what is undone is
 * exactly what ran. The undo is audited (`outcome: undone`, `rule: undo`,
 * `approver`: who asked), and a call is undone at most once.
 *
 * @example
 * await undoToolCall({ audit, sessions, tools: registry, runId, toolCallId: 'call_4', undoneBy: 'li.wei' });
 */
export async function undoToolCall({
  audit,
  sessions,
  tools,
  toolCallId,
  runId,
  undoneBy,
  principal,
  locale = 'en',
  signal = new AbortController().signal,
}: {
  audit: Pick<AuditStore, 'listAudit' | 'append'>;
  sessions: SessionStore;
  tools: ToolSet;
  toolCallId: string;
  /** Needed only when the tool call id is not unique in the audit log. */
  runId?: string;
  /** Who asked for the undo; audited as the approver. */
  undoneBy: string;
  /** Default: the session's principal (tenant and user, no roles). */
  principal?: Principal;
  locale?: Locale;
  signal?: AbortSignal;
}): Promise<UndoResult> {
  const startedAt = performance.now();
  const entries = await audit.listAudit({ toolCallId, ...(runId === undefined ? {} : { runId }) });
  const runs = new Set(entries.map((entry) => entry.runId));
  if (runs.size > 1) {
    throw new UndoError({ toolCallId, failure: 'not_found', runCount: runs.size });
  }
  const original = entries.find((entry) => entry.outcome === 'ok' && executed.has(entry.decision));
  if (original === undefined) {
    throw new UndoError({ toolCallId, failure: entries.length === 0 ? 'not_found' : 'not_executed' });
  }
  const toolName = original.tool;
  if (entries.some((entry) => entry.outcome === 'undone')) {
    throw new UndoError({ toolCallId, failure: 'already_undone', toolName });
  }
  const tool = tools.get(toolName);
  if (tool === undefined) throw new UndoError({ toolCallId, failure: 'unknown_tool', toolName });
  if (tool.definition.sideEffect !== 'reversible') {
    throw new UndoError({ toolCallId, failure: 'not_reversible', toolName, sideEffect: tool.definition.sideEffect });
  }
  const undo = tool.definition.undo;
  if (undo === undefined) throw new UndoError({ toolCallId, failure: 'no_undo', toolName });

  const session = original.sessionId === undefined ? undefined : await sessions.load(original.sessionId);
  const call = session === undefined ? undefined : findToolCall(session.messages, toolCallId);
  const recorded =
    original.sessionId === undefined
      ? undefined
      : await sessions.journal({ sessionId: original.sessionId }).findToolResult(original.runId, toolCallId);
  if (session === undefined || call === undefined || recorded === undefined || !recorded.outcome.ok) {
    throw new UndoError({ toolCallId, failure: 'no_result', toolName });
  }
  const checked = validateToolCall({ registry: tools, name: toolName, rawArguments: call, locale });
  const actor: Principal | undefined =
    principal ??
    (session.userId === undefined
      ? undefined
      : { tenantId: session.tenantId ?? '', userId: session.userId, roles: [] });
  const args = checked.ok ? bindPrincipalParameters({ args: checked.args, tool, principal: actor }) : undefined;
  if (args === undefined || argumentsHash(args) !== original.argumentsHash) {
    throw new UndoError({ toolCallId, failure: 'arguments_mismatch', toolName });
  }

  const context: ToolContext = {
    runId: original.runId,
    sessionId: original.sessionId,
    step: original.step,
    toolCallId,
    principal: actor,
    signal,
    locale: 'en',
    history: emptyCallHistory,
  };
  const record = (outcome: 'undone' | 'undo_failed') =>
    audit.append({
      ...original,
      at: Date.now(),
      decision: 'allowed',
      rule: 'undo',
      approver: undoneBy,
      outcome,
      durationMs: performance.now() - startedAt,
    });
  try {
    await undo(args, recorded.outcome.data, context);
  } catch (error) {
    record('undo_failed');
    throw new UndoError({ toolCallId, failure: 'undo_failed', toolName, cause: error });
  }
  record('undone');
  return { toolCallId, runId: original.runId, tool: toolName, undid: original };
}

function findToolCall(messages: readonly ChatMessage[], toolCallId: string): string | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'assistant') continue;
    const call = message.tool_calls?.find((candidate) => candidate.id === toolCallId);
    if (call !== undefined) return call.function.arguments;
  }
  return undefined;
}
