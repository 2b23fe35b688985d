export {
  type AuthConfig,
  type AuthEntry,
  createAuthenticator,
  demoAuthConfig,
  demoTokens,
  parseAuthConfig,
  readAuthConfig,
} from './auth-config.js';
export { type ArbiterServer, type CreateServerOptions, createServer } from './create-server.js';
export { HttpError } from './http-error.js';
export { loadToolsModule, type ToolsModuleContext } from './load-tools-module.js';
export { isTerminalEvent, type RunFollower, RunManager, type RunManagerOptions } from './run-manager.js';
export { ServerMetrics } from './server-metrics.js';
export { type ServerRun, type ServerRunStatus, ServerRuns } from './server-runs.js';
export { type VisibleMessage, visibleMessages } from './session-routes.js';
export { type RunningServer, type StartServerOptions, startServer } from './start-server.js';
export { type StreamingDelay, withStreamingDelay } from './with-streaming-delay.js';
