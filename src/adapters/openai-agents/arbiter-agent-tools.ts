import type { FunctionTool, RunContext } from '@openai/agents';
import type { ToolSet } from '../../tools/tool-registry.js';
import { type ArbiterLoopOptions, type ArbiterToolResult, createGateBridge } from '../gate-bridge.js';

/** One of arbiter's tools as an OpenAI Agents function tool; its result is the text the model reads. */
export type ArbiterAgentTool = FunctionTool<unknown, FunctionTool['parameters'], string>;

/**
 * arbiter's gate inside OpenAI Agents' loop (`run`, `Runner`): function
 * tools whose every call goes through arbiter's tool runner. The model sees
 * each tool's schema without its bound parameters (filled from the
 * server-side `principal`), non-strict, so a call it gets wrong reaches
 * arbiter and comes back as arbiter's message (en, zh-CN) for it to
 * correct. The gate's "a person must decide" is the tool's `needsApproval`
 * (arbiter's approval recorded at that moment; its id goes to
 * `onApprovalRequired`), so the run stops with an interruption. The
 * interruption is resolved only by arbiter: `state.approve(item)` makes the
 * runner invoke the tool, which runs the call when arbiter's store holds an
 * approval of exactly this call by someone other than the requester
 * (`POST /v1/approvals/:id`, or the broker) and otherwise answers with
 * arbiter's "waiting" or refusal. A call id runs at most once in the
 * conversation: invoked again (a saved state resumed twice, an approved
 * call on a tool set reused for every run), it answers from the recorded
 * result. Once arbiter has returned a third party's text in the
 * conversation, every `egress` call interrupts the run for approval, in
 * this run and every later one (`sessions`). Every call is audited.
 *
 * The principal and the conversation are the tool set's: build one per
 * principal and conversation (per request, or once for a program's own).
 *
 * @example
 * const tools = arbiterAgentTools(registry, { principal, conversationId: threadId, approvals, gate, idempotency, sessions });
 * const agent = new Agent({ name: 'shop', instructions, tools });
 * let result = await run(agent, 'Refund 80 yuan on SO20260902, the mug was chipped.');
 * // result.interruptions: the refund waits; once staff approve ap_… in arbiter:
 * for (const item of result.interruptions) result.state.approve(item);
 * result = await run(agent, result.state);
 */
export function arbiterAgentTools(tools: ToolSet, options: ArbiterLoopOptions): ArbiterAgentTool[] {
  const bridge = createGateBridge({ tools, loop: 'openai_agents', options });
  const agentTools: ArbiterAgentTool[] = [];
  for (const name of tools.names) {
    const tool = tools.get(name);
    if (tool === undefined) continue;
    const { description, parameters } = tool.spec.function;
    agentTools.push({
      type: 'function',
      name,
      description,
      parameters: parameters as FunctionTool['parameters'],
      // Not strict: a call that misses the schema reaches arbiter, whose message tells the model what to fix.
      strict: false,
      invoke: async (runContext: RunContext<unknown>, input: string, details) => {
        const toolCallId = details?.toolCall?.callId ?? '';
        const result = await bridge.run({ tool: name, input, toolCallId, step: stepOf(runContext) });
        return resultText(result);
      },
      needsApproval: (runContext, input, callId) =>
        bridge.needsApproval({ tool: name, input, toolCallId: callId ?? '', step: stepOf(runContext) }),
      isEnabled: async () => true,
    });
  }
  return agentTools;
}

function resultText(result: ArbiterToolResult): string {
  return result.text;
}

/** The step of the run a call belongs to: the model requests made so far (the runner counts them). */
function stepOf(runContext: RunContext<unknown>): number {
  return Math.max(1, runContext.usage.requests);
}
