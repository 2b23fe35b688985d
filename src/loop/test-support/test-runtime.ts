import type { AgentEvent } from '../../events/agent-event.js';
import { EventBus } from '../../events/event-bus.js';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { RunAgentOptions } from '../run-agent.js';
import { createRunRuntime } from '../run-runtime.js';
import { sequenceModel } from './sequence-model.js';

/**
 * A run's runtime for testing one step: a `query_order` tool (bound to the
 * principal's tenant and user, `note` optional), a scripted model, and every
 * event the steps emit.
 */
export function testRuntime(overrides: Partial<RunAgentOptions> = {}) {
  const executed: unknown[] = [];
  const registry = new ToolRegistry().register(
    defineTool<{ order_id: string; note?: string; tenant_id?: string; user_id?: string }>({
      name: 'query_order',
      description: 'Look up one order. Not for shipments: use track_shipment.',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string', pattern: '^SO\\d{8}$' },
          note: { type: 'string', minLength: 1 },
          tenant_id: { type: 'string' },
          user_id: { type: 'string' },
        },
        required: ['order_id', 'tenant_id', 'user_id'],
        additionalProperties: false,
      },
      sideEffect: 'read',
      sensitive: ['note'],
      boundParameters: { tenant_id: 'tenantId', user_id: 'userId' },
      execute: (args) => {
        executed.push(args);
        return { order_id: args.order_id, status: 'shipped' };
      },
    }),
  );
  const events: AgentEvent[] = [];
  const bus = new EventBus();
  bus.subscribe((event) => {
    events.push(event);
  });
  const options: RunAgentOptions = {
    model: sequenceModel([]),
    tools: registry,
    messages: [{ role: 'user', content: 'Where is SO20260901?' }],
    principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
    events: bus,
    ...overrides,
  };
  const runtime = createRunRuntime(options, 'run_test');
  return { runtime, registry, events, executed, options };
}

/** A tool call of the model, arguments as an object. */
export function toolCall(id: string, name: string, args: unknown) {
  return { id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } };
}
