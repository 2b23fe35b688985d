import type { Awaitable } from '../core/awaitable.js';
import type { Principal } from '../core/principal.js';
import type { ToolErrorPayload, ToolOutcome } from '../core/tool-outcome.js';
import type { OriginalCall } from '../gate/audit-log.js';
import type { IdempotencyClaimRequest, IdempotencyStore } from '../gate/idempotency-store.js';
import { canonicalJson } from '../util/canonical-json.js';
import { isRecord } from '../util/is-record.js';
import { sha256Hex } from '../util/sha256.js';
import { maxArgumentDepth, nestingDepth } from '../validation/nesting-depth.js';
import type { ArbiterToolResult } from './gate-bridge.js';

/** The name and version of what a call's claim records: a record of another shape is never read as one. */
const recordFormat = 'arbiter.adapter-call.v1';

/** What arbiter answered a call of an outside loop, kept under the conversation and the call id. */
export interface AdapterCallAnswer {
  readonly status: 'ok' | 'error';
  /** The result (`ok`) or the error payload (`error`), as the loop got it. */
  readonly value: unknown;
  /** What the model read. */
  readonly text: string;
  /** The untrusted source the answer carried content from (see `ToolDefinition.untrustedOutput`), if any. */
  readonly untrusted?: string;
}

/**
 * Where a call id of a conversation stands before arbiter runs it (see
 * `AdapterCalls.claim`). A claim kept in this process answers at once (its
 * methods return nothing to wait for); one kept in the store answers a
 * promise.
 */
export type AdapterCallClaim =
  /** First time: run it, then `complete` with the answer; `release` when it did not run (it may run later); `abandon` when it may have acted without an answer. */
  | {
      readonly status: 'new';
      complete(answer: AdapterCallAnswer): Awaitable<void>;
      release(): Awaitable<void>;
      abandon(): Awaitable<void>;
    }
  /** Answered before with the same arguments: hand back `answer`, do not run it. */
  | { readonly status: 'answered'; readonly answer: AdapterCallAnswer; readonly original: OriginalCall }
  /** Answered before for another tool or other arguments: the id is spent in this conversation. */
  | { readonly status: 'id_reused' }
  /** Taken before with no answer: it may have acted (`running`: it may still be running). Never run again. */
  | { readonly status: 'outcome_unknown'; readonly running: boolean };

/**
 * Every call of an outside loop, keyed by its conversation (the run of
 * `externalRunId`: loop, tenant, user, conversation) and the call id the
 * loop gave it: a call id runs at most once per conversation, whatever the
 * tool's tier and whether or not it has an idempotency key of its own. A
 * call id executed again (a client's history sent again, a saved state
 * resumed twice, one tool set reused for every run) is answered with what
 * arbiter answered it the first time; for another tool or other
 * arguments it runs nothing. The claims are arbiter's idempotency claims
 * (principal scope), so they hold across requests, processes and nodes;
 * without a store, this object keeps them (one tool set's lifetime).
 *
 * @example
 * const calls = new AdapterCalls({ store: backend.idempotency, runId, principal });
 * const claim = await calls.claim({ toolCallId: 'call_1', tool: 'apply_refund', argumentsText: '{"order_id":"SO20260901"}' });
 * if (claim.status === 'answered') return claim.answer;
 */
export class AdapterCalls {
  readonly #store: IdempotencyStore | undefined;
  readonly #runId: string;
  readonly #principal: Principal;
  /** Without a store: this object's call ids (all of one conversation), by id. */
  readonly #inProcess = new Map<string, InProcessCall>();

  constructor({
    store,
    runId,
    principal,
  }: {
    /** arbiter's idempotency claims; absent: kept by this object only. */
    store: IdempotencyStore | undefined;
    /** The conversation's run (`externalRunId`). */
    runId: string;
    principal: Principal;
  }) {
    this.#store = store;
    this.#runId = runId;
    this.#principal = principal;
  }

  /**
   * Takes the call id for this call, or says what it was answered before:
   * at once without a store (nothing to wait for), a promise with one.
   */
  claim({
    toolCallId,
    tool,
    argumentsText,
  }: {
    toolCallId: string;
    tool: string;
    /** The arguments as arbiter parses them (JSON text). */
    argumentsText: string;
  }): Awaitable<AdapterCallClaim> {
    if (this.#store === undefined) return this.#claimInProcess(toolCallId, tool, argumentsText);
    return this.#claimInStore(this.#store, toolCallId, tool, argumentsText);
  }

  async #claimInStore(
    store: IdempotencyStore,
    toolCallId: string,
    tool: string,
    argumentsText: string,
  ): Promise<AdapterCallClaim> {
    const request: IdempotencyClaimRequest = {
      // The run names loop, tenant, user and conversation; JSON of the pair: no ids make another pair's text.
      key: `adapter-call:${sha256Hex(JSON.stringify([this.#runId, toolCallId]))}`,
      claimant: { tenantId: this.#principal.tenantId, userId: this.#principal.userId },
      scope: 'principal',
      runId: this.#runId,
      toolCallId,
      tool,
    };
    const inputHash = sha256Hex(callIdentity(tool, argumentsText));
    const claim = await store.claim(request);
    switch (claim.status) {
      case 'claimed':
        return {
          status: 'new',
          complete: async (answer) => {
            const data: StoredAnswer = { format: recordFormat, inputHash, ...answer };
            await claim.complete({ ok: true, data });
          },
          release: async () => {
            await claim.release();
          },
          abandon: async () => {
            await claim.abandon();
          },
        };
      case 'completed': {
        const stored = storedAnswer(claim.outcome);
        if (stored === undefined) return { status: 'outcome_unknown', running: false };
        if (stored.inputHash !== inputHash) return { status: 'id_reused' };
        const { format: _format, inputHash: _hash, ...answer } = stored;
        return { status: 'answered', answer, original: claim.original };
      }
      case 'outcome_unknown':
        return { status: 'outcome_unknown', running: claim.ownerMayBeRunning === true };
      case 'claimed_by_another_user':
        // Not for a key of principal scope; read as the safe answer.
        return { status: 'outcome_unknown', running: false };
    }
  }

  /**
   * The same rules as the store's claims, in this object: nothing to hash,
   * nothing to wait for, and the identities (`identity`: the call's) only
   * worked out when a call id comes again.
   */
  #claimInProcess(toolCallId: string, tool: string, argumentsText: string): AdapterCallClaim {
    const calls = this.#inProcess;
    const existing = calls.get(toolCallId);
    if (existing === undefined) {
      calls.set(toolCallId, claimedCall);
      return new InProcessClaim(calls, toolCallId, tool, argumentsText);
    }
    if (existing.state !== 'completed') return { status: 'outcome_unknown', running: existing.state === 'claimed' };
    if (callIdentity(existing.tool, existing.argumentsText) !== callIdentity(tool, argumentsText)) {
      return { status: 'id_reused' };
    }
    return { status: 'answered', answer: existing.answer, original: { runId: this.#runId, toolCallId } };
  }
}

type InProcessCall =
  | { readonly state: 'claimed' | 'abandoned' }
  | {
      readonly state: 'completed';
      readonly tool: string;
      readonly argumentsText: string;
      readonly answer: AdapterCallAnswer;
    };

const claimedCall: InProcessCall = { state: 'claimed' };
const abandonedCall: InProcessCall = { state: 'abandoned' };

/** A new call id taken in this process: one object per call, its answer kept with the call it answered. */
class InProcessClaim {
  readonly status = 'new';
  readonly #calls: Map<string, InProcessCall>;
  readonly #toolCallId: string;
  readonly #tool: string;
  readonly #argumentsText: string;

  constructor(calls: Map<string, InProcessCall>, toolCallId: string, tool: string, argumentsText: string) {
    this.#calls = calls;
    this.#toolCallId = toolCallId;
    this.#tool = tool;
    this.#argumentsText = argumentsText;
  }

  complete(answer: AdapterCallAnswer): void {
    this.#calls.set(this.#toolCallId, {
      state: 'completed',
      tool: this.#tool,
      argumentsText: this.#argumentsText,
      answer,
    });
  }

  release(): void {
    this.#calls.delete(this.#toolCallId);
  }

  abandon(): void {
    this.#calls.set(this.#toolCallId, abandonedCall);
  }
}

/**
 * What a call id stands for: the tool (the id of one tool's call answers no
 * other tool's) and its arguments' identity. Worked out only when the id
 * comes again (or for the store's hash).
 */
function callIdentity(tool: string, argumentsText: string): string {
  return JSON.stringify([tool, canonicalArguments(argumentsText)]);
}

/**
 * What is recorded of a call's answer: the result or refusal the loop got
 * (a `done` report's), and the untrusted source it carried content from.
 *
 * @example
 * await claim.complete(callAnswerOf(result, 'the web'));
 */
export function callAnswerOf(result: ArbiterToolResult, untrusted: string | undefined): AdapterCallAnswer {
  const value = result.status === 'ok' ? result.data : result.status === 'error' ? result.error : undefined;
  const status = result.status === 'ok' ? 'ok' : 'error';
  // Written out, not spread: a spread of `{}` costs every call a clone of the literal.
  return untrusted === undefined
    ? { status, value, text: result.text }
    : { status, value, text: result.text, untrusted };
}

/**
 * The result an outside loop gets from a recorded answer.
 *
 * @example
 * return resultOfAnswer(claim.answer);
 */
export function resultOfAnswer(answer: AdapterCallAnswer): ArbiterToolResult {
  return answer.status === 'ok'
    ? { status: 'ok', data: answer.value, text: answer.text }
    : { status: 'error', error: answer.value as ToolErrorPayload, text: answer.text };
}

interface StoredAnswer extends AdapterCallAnswer {
  readonly format: typeof recordFormat;
  readonly inputHash: string;
}

function storedAnswer(outcome: ToolOutcome): StoredAnswer | undefined {
  if (!outcome.ok || !isRecord(outcome.data)) return undefined;
  const { format, inputHash, status, text, untrusted } = outcome.data;
  if (format !== recordFormat || typeof inputHash !== 'string' || typeof text !== 'string') return undefined;
  if (status !== 'ok' && status !== 'error') return undefined;
  return {
    format,
    inputHash,
    status,
    value: outcome.data['value'],
    text,
    ...(typeof untrusted === 'string' ? { untrusted } : {}),
  };
}

/** The arguments' identity: their canonical JSON when they parse (key order aside), else the text as sent. */
function canonicalArguments(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (nestingDepth(parsed, maxArgumentDepth) > maxArgumentDepth) return text;
  return canonicalJson(parsed);
}
