import type { ChatMessage } from '../core/chat-message.js';
import type { StopReason } from '../core/stop-reason.js';
import type { CallTrace } from '../observe/run-trace.js';
import { canonicalJson } from '../util/canonical-json.js';
import type { CaseExpectations, ErrorExpectation, TextChecks } from './eval-case.js';
import { findInternalDetails } from './find-internal-details.js';

/** Everything a case's expectations are checked against. */
export interface CaseTranscript {
  /** The last run's stop reason. */
  readonly stopReason: StopReason;
  /** The last assistant text. */
  readonly answer: string | undefined;
  /** The whole conversation, all turns. */
  readonly messages: readonly ChatMessage[];
  /** Every tool call of every turn, from the events. */
  readonly calls: readonly CallTrace[];
  readonly modelCalls: number;
  /** What the toolkit reported after the last turn. */
  readonly state: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Checks a transcript against a case's expectations; returns one sentence
 * per expectation that does not hold (empty: the case passed).
 *
 * @example
 * const failures = checkExpectations({ expect: { stopReason: 'completed' }, transcript });
 */
export function checkExpectations({
  expect,
  transcript,
}: {
  expect: CaseExpectations;
  transcript: CaseTranscript;
}): string[] {
  const failures: string[] = [];
  const { calls } = transcript;
  const toolMessages = new Map<string, string>();
  for (const message of transcript.messages) {
    if (message.role === 'tool') toolMessages.set(message.tool_call_id, message.content);
  }

  if (expect.stopReason !== undefined) {
    const allowed: readonly StopReason[] =
      typeof expect.stopReason === 'string' ? [expect.stopReason] : expect.stopReason;
    if (!allowed.includes(transcript.stopReason)) {
      failures.push(`stop reason: expected ${allowed.join(' or ')}, got ${transcript.stopReason}`);
    }
  }

  const made = new Set(calls.map((call) => call.tool));
  const executed = new Set(calls.filter((call) => call.executed).map((call) => call.tool));
  for (const tool of expect.calls?.made ?? []) if (!made.has(tool)) failures.push(`calls: ${tool} was never called`);
  for (const tool of expect.calls?.notMade ?? []) if (made.has(tool)) failures.push(`calls: ${tool} was called`);
  for (const tool of expect.calls?.executed ?? []) {
    if (!executed.has(tool)) failures.push(`calls: ${tool} never ran`);
  }
  for (const tool of expect.calls?.notExecuted ?? []) if (executed.has(tool)) failures.push(`calls: ${tool} ran`);

  for (const { tool, includes } of expect.arguments ?? []) {
    const matching = calls.some(
      (call) => call.tool === tool && includesValues(parseArguments(call.rawArguments), includes),
    );
    if (!matching) failures.push(`arguments: no call of ${tool} with ${canonicalJson(includes)}`);
  }

  for (const expected of expect.errors ?? []) {
    if (!calls.some((call) => matchesError(call, expected, toolMessages.get(call.toolCallId) ?? ''))) {
      failures.push(`errors: no failed call of ${describeError(expected)}`);
    }
  }

  for (const { tool, decision, reasonContains = [] } of expect.gate ?? []) {
    const held = (call: (typeof calls)[number]) =>
      reasonContains.every((part) => call.approvalReason?.includes(part) === true);
    if (!calls.some((call) => call.tool === tool && call.gate === decision && held(call))) {
      const got = calls
        .filter((call) => call.tool === tool)
        .map((call) => (call.approvalReason === undefined ? call.gate : `${call.gate} (${call.approvalReason})`));
      const why = reasonContains.length === 0 ? '' : ` with a reason containing ${JSON.stringify(reasonContains)}`;
      failures.push(
        `gate: no call of ${tool} was ${decision}${why} (got ${got.length === 0 ? 'no call' : got.join(', ')})`,
      );
    }
  }

  if (expect.answer !== undefined) {
    for (const problem of checkText(transcript.answer ?? '', expect.answer)) failures.push(`answer: ${problem}`);
  }

  const { min, max } = expect.modelCalls ?? {};
  if (min !== undefined && transcript.modelCalls < min) {
    failures.push(`model calls: expected at least ${min}, got ${transcript.modelCalls}`);
  }
  if (max !== undefined && transcript.modelCalls > max) {
    failures.push(`model calls: expected at most ${max}, got ${transcript.modelCalls}`);
  }

  for (const [fact, value] of Object.entries(expect.state ?? {})) {
    const actual = transcript.state?.[fact];
    if (canonicalJson(actual) !== canonicalJson(value)) {
      failures.push(`state: ${fact} expected ${canonicalJson(value)}, got ${canonicalJson(actual) ?? 'nothing'}`);
    }
  }

  if (expect.allowInternalDetails !== true) failures.push(...internalDetailFailures(transcript.messages));
  return failures;
}

function internalDetailFailures(messages: readonly ChatMessage[]): string[] {
  const failures: string[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && message.role !== 'assistant') continue;
    const where = message.role === 'tool' ? `tool message ${message.tool_call_id}` : 'answer';
    for (const detail of findInternalDetails(message.content ?? '')) {
      failures.push(`internal details: ${detail.kind} in ${where}: "${detail.excerpt}"`);
    }
  }
  return failures;
}

/**
 * The problems of a text against its checks, one sentence each.
 *
 * @example
 * checkText('Your order shipped.', { contains: ['shipped'], notMatches: ['\\d{4}-\\d{2}'] }); // []
 */
export function checkText(text: string, checks: TextChecks): string[] {
  const problems: string[] = [];
  const lower = text.toLowerCase();
  for (const part of checks.contains ?? []) {
    if (!lower.includes(part.toLowerCase())) problems.push(`does not contain "${part}"`);
  }
  for (const part of checks.notContains ?? []) {
    if (lower.includes(part.toLowerCase())) problems.push(`contains "${part}"`);
  }
  for (const pattern of checks.matches ?? []) {
    if (!new RegExp(pattern, 'i').test(text)) problems.push(`does not match /${pattern}/`);
  }
  for (const pattern of checks.notMatches ?? []) {
    if (new RegExp(pattern, 'i').test(text)) problems.push(`matches /${pattern}/`);
  }
  return problems;
}

function matchesError(call: CallTrace, expected: ErrorExpectation, message: string): boolean {
  return (
    call.status === 'error' &&
    call.tool === expected.tool &&
    (expected.stage === undefined || call.stage === expected.stage) &&
    (expected.code === undefined || call.code === expected.code) &&
    (expected.retryable === undefined || call.retryable === expected.retryable) &&
    (expected.messageContains ?? []).every((part) => message.includes(part))
  );
}

function describeError(expected: ErrorExpectation): string {
  const parts = [
    expected.stage === undefined ? undefined : `stage ${expected.stage}`,
    expected.code === undefined ? undefined : `code ${expected.code}`,
    expected.retryable === undefined ? undefined : expected.retryable ? 'retryable' : 'not retryable',
    ...(expected.messageContains ?? []).map((part) => `message containing "${part}"`),
  ].filter((part) => part !== undefined);
  return `${expected.tool}${parts.length === 0 ? '' : ` with ${parts.join(', ')}`}`;
}

function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** True when `args` is an object holding every field of `includes` with an equal (canonical JSON) value. */
export function includesValues(args: unknown, includes: Readonly<Record<string, unknown>>): boolean {
  if (typeof args !== 'object' || args === null) return false;
  const record = args as Record<string, unknown>;
  return Object.entries(includes).every(([key, value]) => canonicalJson(record[key]) === canonicalJson(value));
}
