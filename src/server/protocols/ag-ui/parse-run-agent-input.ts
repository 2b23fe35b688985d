import type { RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { Locale } from '../../../core/locale.js';
import { HttpError } from '../../../errors/http-error.js';
import { maxReasonLength as maxApprovalReasonLength } from '../../approval-routes.js';

const locales = ['en', 'zh-CN'] as const satisfies readonly Locale[];
const maxMessageLength = 8000;
const maxIdLength = 200;

/** One resume entry, as an approval decision. */
export interface AgUiDecision {
  /** The interrupt's id: the approval's. */
  readonly approvalId: string;
  readonly decision: 'approve' | 'reject';
  readonly reason?: string;
}

/** What an AG-UI request asks arbiter to do. */
export interface AgUiRequest {
  readonly threadId: string;
  readonly runId: string;
  readonly locale: Locale;
  /** Answers to the interrupts of the thread's run; the run continues once none is pending. */
  readonly decisions: readonly AgUiDecision[];
  /** The user's new message: the text of the last message, when it is the user's (absent with `decisions`). */
  readonly content: string | undefined;
}

/**
 * Checks an AG-UI `RunAgentInput` (with `@ag-ui/core`'s schema, then
 * arbiter's rules) and reads what it asks: a new user message (the last of
 * `messages`; arbiter keeps the thread's history itself) or, with
 * `resume`, decisions on the interrupts of the thread's run (each
 * `{ interruptId, status: 'resolved', payload: { decision: 'approve' |
 * 'reject', reason? } }`, or `status: 'cancelled'`, which rejects). Client
 * tools and context are refused (arbiter runs only its own, gated tools);
 * `state` is ignored (the state is the session's confirmed slots);
 * `forwardedProps.locale` (`en` or `zh-CN`) picks the language. Anything
 * else wrong is a 400 `invalid_run_input` naming each problem.
 *
 * @example
 * const request = parseRunAgentInput(await c.req.json());
 */
export function parseRunAgentInput(body: unknown): AgUiRequest {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((issue) => `${issue.path.length === 0 ? '(input)' : issue.path.join('.')}: ${issue.message}`);
    throw invalid(`not an AG-UI RunAgentInput: ${problems.join('; ')}`, { problems });
  }
  const input = parsed.data as RunAgentInput;
  for (const field of ['threadId', 'runId'] as const) {
    if (input[field].trim() === '' || input[field].length > maxIdLength) {
      throw invalid(`"${field}" must be a non-empty string of at most ${maxIdLength} characters`, { field });
    }
  }
  if ((input.tools ?? []).length > 0) {
    throw invalid(
      'arbiter runs only its own tools, each checked by its gate; send "tools": [] (client-side tools are not supported)',
      { field: 'tools' },
    );
  }
  if ((input.context ?? []).length > 0) {
    throw invalid(
      'arbiter does not take context from the client (the system prompt and the session are the server\'s); send "context": []',
      { field: 'context' },
    );
  }
  const locale = readLocale(input.forwardedProps);
  const decisions = (input.resume ?? []).map((entry, index) => readDecision(entry, index));
  const approvalIds = new Set(decisions.map((decision) => decision.approvalId));
  if (approvalIds.size !== decisions.length) {
    throw invalid('"resume" answers the same interrupt twice', { field: 'resume' });
  }
  if (decisions.length > 0)
    return { threadId: input.threadId, runId: input.runId, locale, decisions, content: undefined };

  const last = input.messages.at(-1);
  if (last?.role !== 'user') {
    throw invalid(
      'nothing to run: the last of "messages" must be the user\'s new message (or send "resume" to answer interrupts)',
      { field: 'messages' },
    );
  }
  const content = textOf(last.content);
  if (content.trim() === '' || content.length > maxMessageLength) {
    throw invalid(`the user's message must be text of 1 to ${maxMessageLength} characters`, { field: 'messages' });
  }
  return { threadId: input.threadId, runId: input.runId, locale, decisions, content };
}

function readLocale(forwardedProps: unknown): Locale {
  if (typeof forwardedProps !== 'object' || forwardedProps === null) return 'en';
  const locale = (forwardedProps as { locale?: unknown }).locale;
  if (locale === undefined) return 'en';
  const known = locales.find((candidate) => candidate === locale);
  if (known === undefined) {
    throw invalid(`"forwardedProps.locale" must be one of ${locales.join(', ')}`, { field: 'forwardedProps.locale' });
  }
  return known;
}

function readDecision(entry: NonNullable<RunAgentInput['resume']>[number], index: number): AgUiDecision {
  const field = `resume.${index}`;
  if (entry.status === 'cancelled') {
    return { approvalId: entry.interruptId, decision: 'reject', reason: 'cancelled' };
  }
  const payload: unknown = entry.payload;
  const decision =
    typeof payload === 'object' && payload !== null ? (payload as { decision?: unknown }).decision : undefined;
  if (decision !== 'approve' && decision !== 'reject') {
    throw invalid(`"${field}.payload.decision" must be "approve" or "reject"`, { field: `${field}.payload.decision` });
  }
  const reason = (payload as { reason?: unknown }).reason;
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > maxApprovalReasonLength)) {
    throw invalid(`"${field}.payload.reason" must be a string of at most ${maxApprovalReasonLength} characters`, {
      field: `${field}.payload.reason`,
    });
  }
  return { approvalId: entry.interruptId, decision, ...(typeof reason === 'string' ? { reason } : {}) };
}

function textOf(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === 'string') return content;
  const media = content.find((part) => part.type !== 'text');
  if (media !== undefined) {
    throw invalid(`the user's message may hold text only, not ${media.type} parts`, { field: 'messages' });
  }
  return content.map((part) => part.text ?? '').join('');
}

function invalid(message: string, details: Record<string, unknown>): HttpError {
  return new HttpError({ status: 400, reason: 'invalid_run_input', message, details });
}
