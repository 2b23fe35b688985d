import type { StopReason } from '../core/stop-reason.js';
import type { FieldDisplay } from '../tools/field-display.js';
import type { EventEnvelope, ToolErrorStage } from './agent-event.js';

/**
 * An event as it leaves the process (browser, SSE, NDJSON, the event log):
 * the tool's name, a status and a sentence for a person. No raw arguments,
 * no sensitive or principal-bound values, no error messages, model names or
 * session ids; the only ids are `runId`, `seq`, `toolCallId` and, so a
 * person can answer it, `approvalId`.
 */
export type ExternalEventBody =
  | { readonly type: 'run:start' }
  | {
      readonly type: 'run:end';
      readonly stopReason: StopReason;
      readonly steps: number;
      readonly durationMs: number;
      readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly totalTokens: number };
      readonly cost?: number;
    }
  | {
      readonly type: 'model:decision';
      readonly step: number;
      readonly kind: string;
      readonly model: string;
      readonly attempt: number;
      readonly delayMs: number;
    }
  | { readonly type: 'run:error'; readonly code: string; readonly text: string }
  | { readonly type: 'model:delta'; readonly step: number; readonly text: string }
  | {
      readonly type: 'model:end';
      readonly step: number;
      readonly toolCalls: number;
      /** The tokens this model call used (the run's timeline on the desk); absent in events logged before it was kept. */
      readonly usage?: { readonly inputTokens: number; readonly outputTokens: number; readonly totalTokens: number };
    }
  | {
      readonly type: 'tool:proposed';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      readonly status: 'proposed';
    }
  | {
      readonly type: 'approval:required';
      readonly step: number;
      readonly toolCallId: string;
      readonly approvalId: string;
      readonly tool: string;
      readonly status: 'awaiting_approval';
      /** What the approval card shows: bound parameters removed, sensitive values `[redacted]`. */
      readonly arguments: Readonly<Record<string, unknown>>;
      /** How the tool asks a person to read some of these fields (money, dates), where it says so. */
      readonly display?: Readonly<Record<string, FieldDisplay>>;
      /** Why a person must decide (the rule's sentence). */
      readonly reason: string;
      /** When the approval is denied if nobody decides (ISO 8601), where the broker keeps one. */
      readonly expiresAt?: string;
      readonly text: string;
    }
  | {
      readonly type: 'approval:resolved';
      readonly toolCallId: string;
      readonly approvalId: string;
      readonly tool: string;
      readonly status: 'approved' | 'rejected' | 'denied';
      readonly text: string;
    }
  | {
      readonly type: 'tool:start';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      readonly status: 'running';
      readonly text: string;
    }
  | {
      readonly type: 'tool:progress';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      readonly status: 'running';
      readonly progress: number;
      readonly total?: number;
    }
  | {
      readonly type: 'tool:end';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      readonly status: 'done';
      readonly durationMs: number;
    }
  | {
      readonly type: 'tool:error';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      readonly status: 'failed';
      readonly stage: ToolErrorStage;
      readonly code: string;
      readonly retryable: boolean;
      readonly text: string;
    }
  | { readonly type: 'heartbeat' }
  | { readonly type: 'gap'; readonly fromSeq: number; readonly toSeq: number; readonly text: string };

export type ExternalEventType = ExternalEventBody['type'];

/** One event as people and other processes see it. */
export type ExternalEvent = ExternalEventBody & EventEnvelope;

/** The external event of a given type. */
export type ExternalEventOf<Type extends ExternalEventType> = Extract<ExternalEvent, { type: Type }>;
