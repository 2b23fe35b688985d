import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Locale } from '../../core/locale.js';
import type { McpApprovals } from './call-tool-through-gate.js';
import { mcpServerTexts } from './mcp-server-texts.js';

/** Which protocol era the instance serves: `modern` 2026-07-28 (input_required), `legacy` 2025-era (server→client requests). */
export type McpEra = 'modern' | 'legacy';

/** The key of the approval form in a 2026-07-28 `input_required` round trip. */
const inputKey = 'arbiter_approval';

/** A call that waits for a person, as `callToolThroughGate` answered it. */
export function awaitingApproval(result: CallToolResult): { approvalId: string; tool: string } | undefined {
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (structured?.['status'] !== 'awaiting_approval') return undefined;
  const { approvalId, tool } = structured;
  return typeof approvalId === 'string' && typeof tool === 'string' ? { approvalId, tool } : undefined;
}

/**
 * Whether the connected client declared form elicitation: in the
 * request's envelope (2026-07-28), or at `initialize` (2025 era).
 */
export function clientElicits(context: ServerContext, declared: ClientCapabilities | undefined): boolean {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? declared;
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  // An empty `elicitation: {}` means form mode (the 2025-06-18 shape).
  return elicitation !== undefined && (Object.keys(elicitation).length === 0 || elicitation['form'] !== undefined);
}

/** What the person at the client answered. */
export type ClientDecision =
  | { readonly kind: 'decided'; readonly decision: 'approve' | 'reject'; readonly reason: string | undefined }
  /** Declined, cancelled or no usable answer: the approval stays pending for the approvers. */
  | { readonly kind: 'undecided' }
  /** 2026-07-28: ask with this result; the client answers on a retried request. */
  | { readonly kind: 'ask'; readonly result: InputRequiredResult };

/**
 * Asks the person at the MCP client to decide a held call, by form
 * elicitation: a server→client `elicitation/create` on a 2025-era
 * connection; an `input_required` result on a 2026-07-28 one (the
 * client's answer arrives with the retried call). Only used where the
 * person at the client may decide his own calls (`arbiter mcp serve
 * --approve-in-client`; on `arbiter serve`, `--allow-self-approval` and
 * the approver role): approving here is self-approval.
 *
 * @example
 * const answer = await askClientToDecide({ context, era, approvalId, tool, arguments: args, locale });
 */
export async function askClientToDecide({
  context,
  era,
  approval,
  locale,
}: {
  context: ServerContext;
  era: McpEra;
  approval: { approvalId: string; tool: string; arguments: Readonly<Record<string, unknown>>; reason: string };
  locale: Locale;
}): Promise<ClientDecision> {
  const texts = mcpServerTexts(locale);
  const form: ElicitRequestFormParams = {
    mode: 'form',
    message: texts.approvalForm({
      tool: approval.tool,
      approvalId: approval.approvalId,
      argumentsJson: JSON.stringify(approval.arguments),
      reason: approval.reason,
    }),
    requestedSchema: {
      type: 'object',
      properties: {
        decision: { type: 'string', title: texts.decisionTitle(), enum: ['approve', 'reject'] },
        reason: { type: 'string', title: texts.reasonTitle(), maxLength: 500 },
      },
      required: ['decision'],
    },
  };
  if (era === 'modern') {
    const answer = inputResponse(context.mcpReq.inputResponses, inputKey);
    if (answer.kind === 'missing') {
      return { kind: 'ask', result: inputRequired({ inputRequests: { [inputKey]: inputRequired.elicit(form) } }) };
    }
    return answer.kind === 'elicit' ? readAnswer(answer.action, answer.content) : { kind: 'undecided' };
  }
  try {
    const answer = await context.mcpReq.elicitInput(form);
    return readAnswer(answer.action, answer.content);
  } catch {
    // An answer outside the form (the SDK checks it against the schema) or a client that went away: nobody decided.
    return { kind: 'undecided' };
  }
}

/** The client's answer is untrusted input: only `approve` or `reject` decide, a reason is a short string or nothing. */
function readAnswer(action: string, content: Record<string, unknown> | undefined): ClientDecision {
  if (action !== 'accept') return { kind: 'undecided' };
  const decision = content?.['decision'];
  if (decision !== 'approve' && decision !== 'reject') return { kind: 'undecided' };
  const reason = content?.['reason'];
  return {
    kind: 'decided',
    decision,
    reason: typeof reason === 'string' && reason.trim() !== '' ? reason.trim().slice(0, 500) : undefined,
  };
}

/**
 * Records the person's decision on the approval (`approver` is the
 * principal who decided in his client).
 *
 * @example
 * await recordClientDecision({ approvals, approvalId, answer, approver: 'C1001' });
 */
export async function recordClientDecision({
  approvals,
  approvalId,
  answer,
  approver,
}: {
  approvals: McpApprovals;
  approvalId: string;
  answer: Extract<ClientDecision, { kind: 'decided' }>;
  approver: string;
}): Promise<void> {
  await approvals.resolveApproval({
    approvalId,
    decision: answer.decision,
    approver,
    ...(answer.reason === undefined ? {} : { reason: answer.reason }),
  });
}
