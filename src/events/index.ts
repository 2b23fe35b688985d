export type { RunUsage } from '../core/run-usage.js';
export type {
  AgentEvent,
  AgentEventBody,
  AgentEventOf,
  AgentEventType,
  EventDraft,
  EventEnvelope,
  GapEventBody,
  ToolErrorStage,
  ToolRoutingRecord,
} from './agent-event.js';
export { type BatchedListener, batchDeltas } from './batch-deltas.js';
export { createEventProjector, type EventProjector, type EventProjectorOptions } from './create-event-projector.js';
export { createTypingIndicator, type TypingIndicator, type TypingSignal } from './create-typing-indicator.js';
export {
  EventBus,
  type EventListener,
  type ListenerErrorHandler,
  type RunEmitter,
  type SubscribeOptions,
  type Subscription,
} from './event-bus.js';
export type { ExternalEvent, ExternalEventBody, ExternalEventOf, ExternalEventType } from './external-event.js';
export { persistEvents } from './persist-events.js';
export {
  defaultProgressTable,
  type EventTexts,
  eventTexts,
  type ProgressTable,
  progressText,
} from './progress-texts.js';
export { displayArguments, looksSensitive, type ToolFieldPolicy, toolFieldPolicy } from './sensitive-fields.js';
export { startHeartbeat } from './start-heartbeat.js';
export { type DeliveryClass, deliveryClass, type SubscriberStats } from './subscriber-queue.js';
