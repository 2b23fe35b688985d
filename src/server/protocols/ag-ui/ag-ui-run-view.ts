import type { Interrupt } from '@ag-ui/core';
import type { AssistantMessage, ChatMessage, ToolMessage } from '../../../core/chat-message.js';
import { displayArguments, type ToolFieldPolicy, toolFieldPolicy } from '../../../events/sensitive-fields.js';
import type { ToolSet } from '../../../tools/tool-registry.js';
import type { ServerDependencies } from '../../server-env.js';
import type { AgUiRunView } from './ag-ui-event-translator.js';

/** The JSON Schema of the answer an approval interrupt expects (`resume[].payload`). */
export const approvalResponseSchema = {
  type: 'object',
  properties: {
    decision: { type: 'string', enum: ['approve', 'reject'] },
    reason: { type: 'string', maxLength: 500 },
  },
  required: ['decision'],
  additionalProperties: false,
} as const;

/** The `reason` of the interrupts arbiter raises: a tool call waits for a person's approval. */
export const approvalInterruptReason = 'tool_approval';

/**
 * The translator's view of one arbiter run of a thread's session: calls'
 * arguments and results from the session (what the model sent and was
 * told), pending approvals from the approval store, all fit to show the
 * caller (bound parameters removed, sensitive values `[redacted]`, the
 * policy of the server's own event projection).
 *
 * @example
 * const view = agUiRunView(dependencies, { sessionId, arbiterRunId });
 */
export function agUiRunView(
  dependencies: ServerDependencies,
  { sessionId, arbiterRunId }: { sessionId: string; arbiterRunId: string },
): AgUiRunView {
  const { sessions, approvals, tools } = dependencies;
  const policyOf = toolPolicies(tools);
  const messages = async (): Promise<readonly ChatMessage[]> => (await sessions.load(sessionId))?.messages ?? [];
  const callOf = (conversation: readonly ChatMessage[], toolCallId: string) => {
    for (const message of conversation) {
      if (message.role !== 'assistant') continue;
      const call = (message as AssistantMessage).tool_calls?.find((candidate) => candidate.id === toolCallId);
      if (call !== undefined) return call;
    }
    return undefined;
  };

  return {
    callArguments: async (toolCallId) => {
      const call = callOf(await messages(), toolCallId);
      if (call === undefined) return '';
      const parsed = parseJson(call.function.arguments);
      // Arguments that are not a JSON object were refused by validation; their raw text is not shown.
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return '';
      return JSON.stringify(displayArguments(parsed as Record<string, unknown>, policyOf(call.function.name)));
    },
    callResult: async (toolCallId) => {
      const conversation = await messages();
      const tool = callOf(conversation, toolCallId)?.function.name ?? '';
      const answer = conversation.find(
        (message): message is ToolMessage => message.role === 'tool' && message.tool_call_id === toolCallId,
      );
      let content = answer?.content;
      if (content === undefined) {
        const recorded = await sessions.journal({ sessionId }).findToolResult(arbiterRunId, toolCallId);
        content = recorded?.content;
      }
      return content === undefined ? undefined : showable(content, policyOf(tool));
    },
    interrupts: async () => {
      const pending = await approvals.listApprovals({ status: 'pending', runId: arbiterRunId });
      return pending.map(
        (approval): Interrupt => ({
          id: approval.approvalId,
          reason: approvalInterruptReason,
          message: approval.reason,
          toolCallId: approval.toolCallId,
          responseSchema: { ...approvalResponseSchema },
          expiresAt: new Date(approval.expiresAt).toISOString(),
          metadata: {
            approvalId: approval.approvalId,
            tool: approval.tool,
            arguments: displayArguments(approval.arguments, policyOf(approval.tool)),
          },
        }),
      );
    },
  };
}

/** The field policy of each tool, as the server's event projection builds it. */
function toolPolicies(tools: ToolSet): (name: string) => ToolFieldPolicy {
  const policies = new Map<string, ToolFieldPolicy>();
  return (name) => {
    let policy = policies.get(name);
    if (policy === undefined) {
      const registered = tools.get(name);
      policy = toolFieldPolicy(
        registered === undefined
          ? {}
          : {
              sensitive: registered.definition.sensitive ?? [],
              parameters: registered.definition.parameters,
              boundParameters: [
                ...registered.boundParameterNames,
                ...Object.keys(registered.definition.boundParameters ?? {}),
              ],
            },
      );
      policies.set(name, policy);
    }
    return policy;
  };
}

/** A tool message's content fit to show: JSON with its sensitive fields redacted, or the text as it is. */
function showable(content: string, policy: ToolFieldPolicy): string {
  const parsed = parseJson(content);
  if (typeof parsed !== 'object' || parsed === null) return content;
  const redacted = displayArguments({ value: parsed }, { ...policy, boundParameters: [] }).value;
  return JSON.stringify(redacted);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
