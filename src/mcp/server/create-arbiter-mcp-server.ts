import { type CallToolResult, type ListToolsResult, Server } from '@modelcontextprotocol/server';
import type { Locale } from '../../core/locale.js';
import type { Principal } from '../../core/principal.js';
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
}: {
  pipeline: McpToolPipeline;
  principal: Principal;
  /** The language of arbiter's own sentences (validation messages, approval notes). Default English. */
  locale?: Locale;
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
  server.setRequestHandler(
    'tools/call',
    (request, context): Promise<CallToolResult> =>
      callToolThroughGate({
        pipeline,
        principal,
        name: request.params.name,
        arguments: request.params.arguments,
        locale,
        signal: context.mcpReq.signal,
      }),
  );
  return server;
}
