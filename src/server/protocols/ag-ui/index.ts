/**
 * @module
 * arbiter as an AG-UI agent: `POST /v1/ag-ui` takes a `RunAgentInput` and
 * answers with AG-UI events written by the official encoder.
 */
export {
  AgUiEventTranslator,
  type AgUiEventTranslatorOptions,
  type AgUiRunView,
  agUiCustomPrefix,
} from './ag-ui-event-translator.js';
export { agUiRoutes } from './ag-ui-routes.js';
export { agUiRunView, approvalInterruptReason, approvalResponseSchema } from './ag-ui-run-view.js';
export { type AgUiDecision, type AgUiRequest, parseRunAgentInput } from './parse-run-agent-input.js';
export { type StreamAgUiRunOptions, streamAgUiRun } from './stream-ag-ui-run.js';
export { openThreadSession, threadSessionId } from './thread-session.js';
