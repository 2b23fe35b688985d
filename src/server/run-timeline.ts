import type { ChatMessage } from '../core/chat-message.js';
import type { ExternalEvent } from '../events/external-event.js';
import type { ApprovalRecord } from '../gate/approval-record.js';
import type { AuditRecord } from '../store/audit-rows.js';
import { isRecord } from '../util/is-record.js';
import type { Mutable } from '../util/mutable.js';

/** A model call of the run: when, how long, the tokens it used, what it said, how many calls it proposed. */
export interface TimelineModelStep {
  readonly kind: 'model';
  readonly step: number;
  readonly at: string;
  /** From the event before the call to its end. */
  readonly durationMs: number;
  readonly tokens: { readonly input: number; readonly output: number; readonly total: number } | null;
  readonly text: string;
  readonly toolCalls: number;
}

/** One tool call: validation, the gate, the approval, the result. */
export interface TimelineToolStep {
  readonly kind: 'tool';
  readonly step: number;
  readonly toolCallId: string;
  readonly tool: string;
  readonly at: string;
  /** The arguments the model proposed, as a card shows them (sensitive values redacted); null when not stored. */
  readonly arguments: Readonly<Record<string, unknown>> | null;
  /** What the model was told when the call failed validation (the fields and how to fix them); null otherwise. */
  readonly feedback: string | null;
  /** `failed` when the arguments did not pass the schema (the model was told, and may correct the call). */
  readonly validation: 'passed' | 'failed' | 'not_reached';
  /** The gate's decision and rule, from the audit row (`auto`, `approved`, `rejected`, `denied`, …). */
  readonly gate: { readonly decision: string; readonly rule: string | null } | null;
  readonly approval: {
    readonly approvalId: string;
    readonly status: string;
    readonly approver: string | null;
    readonly reason: string | null;
    readonly decidedAt: string | null;
  } | null;
  /** `ok`, `error`, `pending` (waiting for a person) or `running`. */
  readonly result: 'ok' | 'error' | 'pending' | 'running';
  readonly error: { readonly stage: string; readonly code: string; readonly text: string } | null;
  /** The audit's outcome (`ok`, `replayed:ok`, `not_run`, …). */
  readonly outcome: string | null;
  /** An idempotency key answered with the first execution's result: nothing ran again. */
  readonly replayed: boolean;
  /** For a replay: the call that ran first, whose answer this one gave back. */
  readonly replayOf: { readonly runId: string; readonly toolCallId: string } | null;
  /** The tool message the model got for a call that ended `ok` (a replay's is the first call's); null otherwise. */
  readonly answer: string | null;
  readonly durationMs: number | null;
}

/** A tool call as the session's messages hold it: the proposed arguments (shown) and the tool message's text. */
export interface StoredCall {
  readonly arguments: Readonly<Record<string, unknown>> | null;
  readonly content: string | null;
}

/** The run's own moments: started (again, after an approval), ended, failed. */
export interface TimelineRunStep {
  readonly kind: 'run';
  readonly event: 'start' | 'end' | 'error';
  readonly at: string;
  readonly stopReason: string | null;
  readonly tokens: { readonly input: number; readonly output: number; readonly total: number } | null;
  readonly cost: number | null;
  readonly durationMs: number | null;
  readonly code: string | null;
}

export type TimelineStep = TimelineModelStep | TimelineToolStep | TimelineRunStep;

/**
 * A run as the steps it took, from its stored events (order, model calls,
 * validation, results), its audit rows (the gate's decision and rule, who
 * approved, idempotent replays) and its approvals (who decided, why). A
 * tool call shows once, at its latest state; a resumed run's calls join the
 * calls they continue.
 *
 * @example
 * const steps = runTimeline({ events, audit, approvals });
 * steps.filter((step) => step.kind === 'tool').map((step) => step.gate?.rule);
 */
export function runTimeline({
  events,
  audit,
  approvals,
  calls = new Map(),
}: {
  events: readonly ExternalEvent[];
  audit: readonly AuditRecord[];
  approvals: readonly ApprovalRecord[];
  /** By tool call id, from the session's messages (`storedCalls`). */
  calls?: ReadonlyMap<string, StoredCall>;
}): TimelineStep[] {
  const steps: Mutable<TimelineStep>[] = [];
  const models = new Map<number, { step: Mutable<TimelineModelStep>; attempt: number }>();
  const tools = new Map<string, Mutable<TimelineToolStep>>();
  const iso = (at: number) => new Date(at).toISOString();
  let attempt = 0;
  let lastAt: number | undefined;
  const model = (step: number, at: number): Mutable<TimelineModelStep> => {
    const known = models.get(step);
    if (known !== undefined && known.attempt === attempt) return known.step;
    const created: Mutable<TimelineModelStep> = {
      kind: 'model',
      step,
      at: iso(lastAt ?? at),
      durationMs: 0,
      tokens: null,
      text: '',
      toolCalls: 0,
    };
    models.set(step, { step: created, attempt });
    steps.push(created);
    return created;
  };
  const tool = (event: { toolCallId: string; tool: string; at: number; step?: number }): Mutable<TimelineToolStep> => {
    const known = tools.get(event.toolCallId);
    if (known !== undefined) return known;
    const created: Mutable<TimelineToolStep> = {
      kind: 'tool',
      step: event.step ?? 0,
      toolCallId: event.toolCallId,
      tool: event.tool,
      at: iso(event.at),
      arguments: null,
      feedback: null,
      validation: 'not_reached',
      gate: null,
      approval: null,
      result: 'running',
      error: null,
      outcome: null,
      replayed: false,
      replayOf: null,
      answer: null,
      durationMs: null,
    };
    tools.set(event.toolCallId, created);
    steps.push(created);
    return created;
  };

  for (const event of events) {
    switch (event.type) {
      case 'run:start':
        attempt += 1;
        steps.push(runStep({ event: 'start', at: iso(event.at) }));
        break;
      case 'run:end':
        steps.push(
          runStep({
            event: 'end',
            at: iso(event.at),
            stopReason: event.stopReason,
            tokens: {
              input: event.usage.inputTokens,
              output: event.usage.outputTokens,
              total: event.usage.totalTokens,
            },
            cost: event.cost ?? null,
            durationMs: event.durationMs,
          }),
        );
        break;
      case 'run:error':
        steps.push(runStep({ event: 'error', at: iso(event.at), code: event.code }));
        break;
      case 'model:delta':
        model(event.step, event.at).text += event.text;
        break;
      case 'model:end': {
        const current = model(event.step, event.at);
        current.durationMs = Math.max(0, event.at - Date.parse(current.at));
        current.toolCalls = event.toolCalls;
        if (event.usage !== undefined) {
          current.tokens = {
            input: event.usage.inputTokens,
            output: event.usage.outputTokens,
            total: event.usage.totalTokens,
          };
        }
        break;
      }
      case 'tool:proposed':
        tool(event);
        break;
      case 'approval:required':
        Object.assign(tool(event), { validation: 'passed', result: 'pending' });
        break;
      case 'approval:resolved':
      case 'tool:start':
        Object.assign(tool(event), { validation: 'passed', result: 'running' });
        break;
      case 'tool:end':
        Object.assign(tool(event), { validation: 'passed', result: 'ok', error: null, durationMs: event.durationMs });
        break;
      case 'tool:error':
        Object.assign(tool(event), {
          validation: event.stage === 'validation' ? 'failed' : 'passed',
          result: 'error',
          error: { stage: event.stage, code: event.code, text: event.text },
        });
        break;
      default:
        break;
    }
    if (event.type !== 'model:delta') lastAt = event.at;
  }

  const byCall = new Map(approvals.map((approval) => [approval.toolCallId, approval]));
  return steps.map((step): TimelineStep => {
    if (step.kind !== 'tool') return step;
    const rows = audit.filter((row) => row.toolCallId === step.toolCallId);
    const row = rows.at(-1);
    const approval = byCall.get(step.toolCallId);
    const outcome = row?.outcome ?? null;
    const stored = calls.get(step.toolCallId);
    return {
      ...step,
      arguments: stored?.arguments ?? null,
      feedback: step.validation === 'failed' ? (stored?.content?.slice(0, maxFeedback) ?? null) : null,
      gate: row === undefined ? step.gate : { decision: row.decision, rule: row.rule ?? null },
      approval:
        approval === undefined
          ? null
          : {
              approvalId: approval.approvalId,
              status: approval.status,
              approver: approval.approver ?? null,
              reason: approval.decisionReason ?? null,
              decidedAt: approval.decidedAt === undefined ? null : iso(approval.decidedAt),
            },
      outcome,
      replayed: outcome?.startsWith('replayed:') ?? false,
      replayOf: row?.replayOf === undefined ? null : { runId: row.replayOf.runId, toolCallId: row.replayOf.toolCallId },
      answer:
        step.result === 'ok' && typeof stored?.content === 'string'
          ? givenBack(stored.content, outcome?.startsWith('replayed:') ?? false).slice(0, maxFeedback)
          : null,
      durationMs: step.durationMs ?? (row === undefined ? null : row.durationMs),
    };
  });
}

/**
 * A call's answer as the desk shows it: for a replay, the first call's answer, without the `already_done` note
 * the model read in front of it.
 */
function givenBack(content: string, replayed: boolean): string {
  if (!replayed) return content;
  try {
    const parsed: unknown = JSON.parse(content);
    if (!isRecord(parsed) || !Object.hasOwn(parsed, 'already_done')) return content;
    const { already_done: _note, ...answer } = parsed;
    return JSON.stringify(answer);
  } catch {
    return content;
  }
}

/** The longest validation feedback a timeline shows. */
const maxFeedback = 2000;

/**
 * The tool calls of a session's messages by id: the model's arguments, as
 * `show` redacts them, and the tool message's text.
 *
 * @example
 * const calls = storedCalls({ messages: session.messages, show: (tool, args) => displayArguments(args, policyOf(tools.get(tool))) });
 */
export function storedCalls({
  messages,
  show,
}: {
  messages: readonly ChatMessage[];
  show: (tool: string, args: Readonly<Record<string, unknown>>) => Record<string, unknown>;
}): Map<string, StoredCall> {
  const calls = new Map<string, { arguments: Readonly<Record<string, unknown>> | null; content: string | null }>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(call.function.arguments);
        } catch {
          parsed = undefined;
        }
        const shown =
          typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
            ? show(call.function.name, parsed as Record<string, unknown>)
            : null;
        calls.set(call.id, { arguments: shown, content: null });
      }
    } else if (message.role === 'tool') {
      const known = calls.get(message.tool_call_id);
      calls.set(message.tool_call_id, { arguments: known?.arguments ?? null, content: message.content });
    }
  }
  return calls;
}

function runStep(fields: Partial<TimelineRunStep> & Pick<TimelineRunStep, 'event' | 'at'>): TimelineRunStep {
  return { kind: 'run', stopReason: null, tokens: null, cost: null, durationMs: null, code: null, ...fields };
}
