export { a2aRoutes } from './a2a-routes.js';
export { a2aTaskSessionId } from './a2a-task-session.js';
export { agentCardMaxAgeSeconds, agentCardPath, agentCardRoute } from './agent-card-route.js';
export { arbiterAgentCard } from './arbiter-agent-card.js';
export { ArbiterAgentExecutor } from './arbiter-agent-executor.js';
export { ArbiterTaskStore } from './arbiter-task-store.js';
export { type A2aTaskRecord, readA2aTask } from './read-a2a-task.js';
