import { isCallHistorySource } from '../core/call-history.js';
import { displayArguments, type ToolFieldPolicy } from '../events/sensitive-fields.js';
import { toolFieldPolicies } from '../events/tool-field-policies.js';
import type { ApprovalRecord } from '../gate/approval-record.js';
import { canonicalJson } from '../util/canonical-json.js';
import { storedCalls } from './run-timeline.js';
import type { ServerDependencies } from './server-env.js';

/** The longest answer of an earlier call the desk shows. */
const maxAnswer = 2000;

/**
 * A call with the very arguments of a pending approval that already ran
 * for the same person: approving again gives back its answer when the tool
 * has an idempotency key (`replays`), or runs it a second time.
 */
export interface EarlierCall {
  readonly runId: string;
  readonly toolCallId: string;
  /** When it ran (ISO 8601). */
  readonly at: string;
  /** What the tool answered then (its tool message), or `null` where it is not stored. */
  readonly answer: string | null;
  /** The tool has an idempotency key: approving answers with this call's result and runs nothing again. */
  readonly replays: boolean;
}

/**
 * The latest call that ran (`outcome` ok) with the same tool and the same
 * arguments, as audited, for the same tenant and user as `approval`'s run:
 * what an approver should know before approving the same refund again.
 *
 * @example
 * const earlier = await findEarlierCall({ dependencies, approval, tenantId: 'shop', userId: 'C1001' });
 * earlier?.answer; // '{"refund_no":"RF…","status":"processing"}'
 */
export async function findEarlierCall({
  dependencies,
  approval,
  tenantId,
  userId,
}: {
  dependencies: Pick<ServerDependencies, 'audit' | 'runs' | 'sessions' | 'tools'>;
  approval: ApprovalRecord;
  tenantId: string | undefined;
  userId: string | undefined;
}): Promise<EarlierCall | null> {
  const { audit } = dependencies;
  if (!isCallHistorySource(audit)) return null;
  const calls = await audit.findCalls({ tool: approval.tool, tenantId: tenantId ?? null, userId: userId ?? null });
  const wanted = canonicalJson(approval.arguments);
  const match = calls.findLast(
    (call) => call.toolCallId !== approval.toolCallId && canonicalJson(call.arguments) === wanted,
  );
  if (match === undefined) return null;
  return {
    runId: match.runId,
    toolCallId: match.toolCallId,
    at: new Date(match.at).toISOString(),
    answer: await answerOf({
      dependencies,
      runId: match.runId,
      toolCallId: match.toolCallId,
      tenantId,
      policy: toolFieldPolicies()(dependencies.tools.get(approval.tool)),
    }),
    replays: dependencies.tools.get(approval.tool)?.definition.idempotencyKey !== undefined,
  };
}

/**
 * The tool message a call got, from its run's conversation, cut at 2,000
 * characters; `null` where the run or its session is gone or another tenant's.
 *
 * @example
 * await answerOf({ dependencies, runId, toolCallId, tenantId: 'shop', policy }); // '{"refund_no":"RF…"}'
 */
export async function answerOf({
  dependencies,
  runId,
  toolCallId,
  tenantId,
  policy,
}: {
  dependencies: Pick<ServerDependencies, 'runs' | 'sessions'>;
  runId: string;
  toolCallId: string;
  tenantId: string | undefined;
  /** The tool's field policy: sensitive values of the answer are redacted. */
  policy: ToolFieldPolicy;
}): Promise<string | null> {
  const run = await dependencies.runs.find(runId);
  if (run === undefined || run.tenantId !== tenantId) return null;
  const session = await dependencies.sessions.load(run.sessionId);
  if (session === undefined || session.tenantId !== tenantId) return null;
  const content = storedCalls({ messages: session.messages, show: () => ({}) }).get(toolCallId)?.content ?? null;
  return content === null ? null : shownAnswer({ content, policy }).slice(0, maxAnswer);
}

/**
 * A tool message as a person may read it away from the live conversation:
 * JSON (an object, a list of them) with its sensitive values `[redacted]`
 * at any depth (as the audit keeps arguments), any other text as it is.
 *
 * @example
 * shownAnswer({ content: '{"phone":"138…","status":"paid"}', policy }); // '{"phone":"[redacted]","status":"paid"}'
 */
export function shownAnswer({ content, policy }: { content: string; policy: ToolFieldPolicy }): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return content;
  }
  if (typeof parsed !== 'object' || parsed === null) return content;
  return JSON.stringify(displayArguments({ value: parsed }, { ...policy, boundParameters: [] })['value']);
}
