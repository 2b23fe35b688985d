/**
 * @module
 * arbiter's tools as an MCP server: `createArbiterMcpServer` (one principal,
 * any transport), `createMcpHttpRoute` (Streamable HTTP behind bearer auth,
 * mounted at `/mcp` by `createServer`), `callToolThroughGate` (one
 * `tools/call` through arbiter's tool runner). `arbiter mcp serve` serves it
 * over stdio.
 */
export type { ClientDecision, McpEra } from './approve-in-client.js';
export { callToolThroughGate, type McpApprovals, type McpToolPipeline } from './call-tool-through-gate.js';
export { arbiterMcpServerInfo, createArbiterMcpServer } from './create-arbiter-mcp-server.js';
export { createMcpHttpRoute, type McpHttpRoute, type McpLimits } from './mcp-http-route.js';
export { isMcpRunId, type McpRunRecords, mcpRunId } from './mcp-run.js';
export { toolAnnotations } from './tool-annotations.js';
