/**
 * @module
 * `@arbiter-runtime/core/server`: the HTTP API, SSE streams, the protocol
 * adapters and the chat page: `startServer` (listening), `createServer`
 * (a Hono app to mount yourself), bearer-token auth files, per-user
 * limits, and `loadToolsModule`, how `arbiter serve --tools` loads an
 * application's domain.
 *
 * @example
 * import { startServer } from '@arbiter-runtime/core/server';
 * const running = await startServer({ port: 8787, dataDir: '.arbiter', tools: createTools(), gateRules });
 * console.log(`listening on ${running.url}/`);
 */

// arbiter's tools as an MCP server (mounted at /mcp by createServer; over stdio by `arbiter mcp serve`).
export {
  callToolThroughGate,
  createArbiterMcpServer,
  createMcpHttpRoute,
  type McpToolPipeline,
} from './mcp/server/index.js';
export {
  type ArbiterServer,
  type AuthConfig,
  type AuthEntry,
  type CreateServerOptions,
  createServer,
  defaultPrincipalLimits,
  demoTokens,
  HttpError,
  loadToolsModule,
  metricsRole,
  minimumTokenLength,
  type PrincipalLimitOptions,
  parseAuthConfig,
  type RunningServer,
  readAuthConfig,
  ServerConfigError,
  type StartServerOptions,
  type StreamingDelay,
  startServer,
  type ToolsModule,
  type ToolsModuleContext,
  withStreamingDelay,
} from './server/index.js';
