import {
  type CallToolResult,
  type InputRequiredResult,
  type ListToolsResult,
  Server,
} from '@modelcontextprotocol/server';
import type { Locale } from '../../core/locale.js';
import type { Principal } from '../../core/principal.js';
import { ApprovalResolutionError } from '../../errors/approval-resolution-error.js';
import {
  askClientToDecide,
  awaitingApproval,
  clientElicits,
  type McpEra,
  recordClientDecision,
} from './approve-in-client.js';
import { callToolThroughGate, type McpToolPipeline } from './call-tool-through-gate.js';
import { toolAnnotations } from './tool-annotations.js';

/** The name and version an MCP client sees. */
export const arbiterMcpServerInfo = { name: 'arbiter', version: '0.1.0' } as const;

/**
 * An MCP server (the SDK's low-level `Server`) over arbiter's tools, acting
 * for one principal: `tools/list` gives each tool's model-facing schema
 * (bound parameters removed) with annotations from its tier, and every
 * `tools/call` goes through `callToolThroughGate`. A fresh one per
 * connection (stdio) or per request (HTTP), from the principal the
 * transport established; the principal never comes from the client's
 * arguments.
 *
 * @example
 * serveStdio(() => createArbiterMcpServer({ pipeline, principal: { tenantId: 'shop', userId: 'C1001', roles: [] } }));
 */
export function createArbiterMcpServer({
  pipeline,
  principal,
  locale = 'en',
  era = 'legacy',
  approveInClient = false,
  track,
}: {
  pipeline: McpToolPipeline;
  principal: Principal;
  /** The language of arbiter's own sentences (validation messages, approval notes). Default English. */
  locale?: Locale;
  /** The protocol era this instance serves (the SDK's factory context says). Default `legacy` (2025). */
  era?: McpEra;
  /**
   * Let the person at the client decide his own held calls by form elicitation, where the client
   * declares it: self-approval, so only where four eyes are off for this principal. Default false.
   */
  approveInClient?: boolean;
  /** Handed each call in flight, so whoever closes the store first waits for them (`arbiter mcp serve`). */
  track?: (call: Promise<unknown>) => void;
}): Server {
  const server = new Server(arbiterMcpServerInfo, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      'Tools served by arbiter: every call is validated, gated and audited. A call that needs a person ' +
      'is not run; its result names the approval. Repeat exactly the same call once it is approved.',
  });
  server.setRequestHandler(
    'tools/list',
    (): ListToolsResult => ({
      tools: pipeline.tools.names.flatMap((name) => {
        const tool = pipeline.tools.get(name);
        if (tool === undefined) return [];
        const { description, parameters } = tool.spec.function;
        return [
          {
            name,
            description,
            inputSchema: parameters as ListToolsResult['tools'][number]['inputSchema'],
            annotations: toolAnnotations(tool),
          },
        ];
      }),
    }),
  );
  server.setRequestHandler('tools/call', async (request, context): Promise<CallToolResult | InputRequiredResult> => {
    const call = () => {
      const calling = callToolThroughGate({
        pipeline,
        principal,
        name: request.params.name,
        arguments: request.params.arguments,
        locale,
        signal: context.mcpReq.signal,
      });
      track?.(calling);
      return calling;
    };
    const result = await call();
    const held = approveInClient ? awaitingApproval(result) : undefined;
    if (held === undefined || !clientElicits(context, server.getClientCapabilities())) return result;
    const record = await pipeline.approvals.getApproval(held.approvalId);
    if (record === undefined) return result;
    const answer = await askClientToDecide({
      context,
      era,
      approval: { approvalId: held.approvalId, tool: held.tool, arguments: record.arguments, reason: record.reason },
      locale,
    });
    if (answer.kind === 'ask') return answer.result;
    if (answer.kind === 'undecided') return result;
    try {
      await recordClientDecision({
        approvals: pipeline.approvals,
        approvalId: held.approvalId,
        answer,
        approver: principal.userId,
      });
    } catch (error) {
      // Decided meanwhile by an approver (or expired): the repeated call answers with that.
      if (!ApprovalResolutionError.isInstance(error)) throw error;
    }
    return call();
  });
  return server;
}
