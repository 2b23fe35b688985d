export { type CheckedCallToolResult, checkCallToolResult } from './check-call-tool-result.js';
export { checkMcpSchema, type McpSchemaCheck, maxSchemaChars, maxSchemaDepth } from './check-mcp-schema.js';
export { type McpCallOptions, McpConnection, type McpProgress } from './mcp-connection.js';
export { McpConnectionError } from './mcp-connection-error.js';
export { McpResultError } from './mcp-result-error.js';
export {
  type McpCredentials,
  type McpProtocolVersion,
  type McpServerConfig,
  type McpToolOverride,
  parseMcpConfig,
  readMcpConfig,
} from './mcp-server-config.js';
export {
  McpServerMount,
  type McpToolChanges,
  type McpToolRefusal,
  type MountedMcpTool,
  maxDescriptionChars,
} from './mcp-server-mount.js';
export { type McpTier, mcpTier } from './mcp-tier.js';
export { mcpToolName } from './mcp-tool-name.js';
export { type McpToolData, mcpToolResult } from './mcp-tool-result.js';
export { type McpMounts, mountMcpServers, openMcpMounts } from './mount-mcp-servers.js';
