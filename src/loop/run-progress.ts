import type { ChatMessage } from '../core/chat-message.js';
import type { RunUsage } from '../core/run-usage.js';
import type { PendingApproval } from './pending-approval.js';
import type { RunAgentOptions } from './run-agent.js';

/**
 * What one run has done so far: the conversation, the steps, the tokens and
 * money spent (continuing a resumed run's counters), the last answer text.
 * Mutated by the run's steps; one per run.
 *
 * @example
 * const progress = createRunProgress(options);
 * progress.steps += 1;
 */
export interface RunProgress {
  readonly conversation: ChatMessage[];
  /** Where this run's own messages begin in `conversation`. */
  readonly firstNew: number;
  /** Every tool call id in the conversation, so a repeated one is renamed. */
  readonly callIds: Set<string>;
  readonly startedAt: number;
  readonly usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
  steps: number;
  cost: number;
  lastText: string | undefined;
  /** The calls of the last batch that wait for a person (set when it stops the run with `awaiting_approval`). */
  pendingApprovals: readonly PendingApproval[];
}

/**
 * A run's progress at its start: the conversation given, and the counters
 * of the interrupted run it resumes, if it resumes one.
 *
 * @example
 * const progress = createRunProgress({ messages, resume: { steps: 3, usage } });
 */
export function createRunProgress(options: Pick<RunAgentOptions, 'messages' | 'resume'>): RunProgress {
  const conversation: ChatMessage[] = [...options.messages];
  const callIds = new Set<string>();
  for (const message of conversation) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) callIds.add(call.id);
  }
  const resumed: RunUsage | undefined = options.resume?.usage;
  return {
    conversation,
    firstNew: conversation.length,
    callIds,
    startedAt: performance.now(),
    usage: {
      inputTokens: resumed?.inputTokens ?? 0,
      outputTokens: resumed?.outputTokens ?? 0,
      cachedInputTokens: resumed?.cachedInputTokens ?? 0,
    },
    steps: options.resume?.steps ?? 0,
    cost: options.resume?.cost ?? 0,
    lastText: undefined,
    pendingApprovals: [],
  };
}
