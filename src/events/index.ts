export type {
  AgentEvent,
  AgentEventBody,
  AgentEventOf,
  AgentEventType,
  EventEnvelope,
  RunUsage,
  ToolErrorStage,
} from './agent-event.js';
export { EventBus, type EventListener, type ListenerErrorHandler, type RunEmitter } from './event-bus.js';
