/**
 * @module
 * `@arbiter-runtime/core/mcp`: the Model Context Protocol both ways, on the
 * official SDK (protocol revisions 2026-07-28 and 2025-11-25, stdio and
 * Streamable HTTP).
 *
 * Mounting: `mountMcpServers` (or `McpServerMount` for one server) puts an
 * MCP server's tools into a `ToolRegistry` behind arbiter's validation,
 * gate, approvals, idempotency and audit; `readMcpConfig` reads the JSON
 * list of servers `arbiter serve --mcp` takes.
 *
 * Serving: `createArbiterMcpServer` is an MCP server over arbiter's tools
 * for one principal (hand it to the SDK's `serveStdio`, as `arbiter mcp
 * serve` does), `createMcpHttpRoute` the Streamable HTTP endpoint behind
 * bearer auth that `createServer` mounts at `/mcp`.
 *
 * @example
 * import { ToolRegistry, createTierGate, runAgent } from '@arbiter-runtime/core';
 * import { mountMcpServers, readMcpConfig } from '@arbiter-runtime/core/mcp';
 * const registry = new ToolRegistry();
 * const mcp = await mountMcpServers({ servers: await readMcpConfig({ file: 'mcp.json' }), registry });
 * const result = await runAgent({ model, tools: registry, messages, gate: createTierGate({ tools: registry }) });
 * await mcp.close();
 */
export {
  type CheckedCallToolResult,
  checkCallToolResult,
  checkMcpSchema,
  type McpCallOptions,
  McpConnection,
  McpConnectionError,
  type McpCredentials,
  type McpMounts,
  type McpProgress,
  type McpProtocolVersion,
  McpResultError,
  type McpSchemaCheck,
  type McpServerConfig,
  McpServerMount,
  type McpTier,
  type McpToolChanges,
  type McpToolOverride,
  type McpToolRefusal,
  type MountedMcpTool,
  mcpTier,
  mcpToolName,
  mountMcpServers,
  openMcpMounts,
  parseMcpConfig,
  readMcpConfig,
} from './mcp/client/index.js';
export {
  arbiterMcpServerInfo,
  callToolThroughGate,
  createArbiterMcpServer,
  createMcpHttpRoute,
  isMcpRunId,
  type McpApprovals,
  type McpHttpRoute,
  type McpLimits,
  type McpRunRecords,
  type McpToolPipeline,
  mcpRunId,
  toolAnnotations,
} from './mcp/server/index.js';
