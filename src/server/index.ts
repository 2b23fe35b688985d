export { HttpError } from '../errors/http-error.js';
export { ServerConfigError } from '../errors/server-config-error.js';
export { type ServerRun, type ServerRunStatus, ServerRuns } from '../store/sqlite/sqlite-server-runs.js';
export {
  type AuthConfig,
  type AuthEntry,
  createAuthenticator,
  demoAuthConfig,
  demoTokens,
  minimumTokenLength,
  parseAuthConfig,
  readAuthConfig,
} from './auth-config.js';
export { type ArbiterServer, type CreateServerOptions, createServer } from './create-server.js';
export { loadToolsModule, type ToolsModule, type ToolsModuleContext } from './load-tools-module.js';
export { isLoopbackAddress, isLoopbackHostHeader } from './loopback-host.js';
export { metricsRole } from './metrics-route.js';
export { defaultPrincipalLimits, type PrincipalLimitOptions, PrincipalLimits } from './principal-limits.js';
export { isTerminalEvent, type RunFollower, RunManager, type RunManagerOptions } from './run-manager.js';
export { ServerMetrics, unknownToolLabel } from './server-metrics.js';
export { type VisibleMessage, visibleMessages } from './session-routes.js';
export { type RunningServer, type StartServerOptions, startServer } from './start-server.js';
export { type StreamingDelay, withStreamingDelay } from './with-streaming-delay.js';
