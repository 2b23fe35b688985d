import type { AgentEventType } from './agent-event.js';

/**
 * How an event may be treated when a subscriber's queue is full:
 * `coalesce` merges into the queued delta before it, `heartbeat` is dropped
 * first, `progress` is dropped next, `keep` is never dropped silently.
 */
export type DeliveryClass = 'coalesce' | 'heartbeat' | 'progress' | 'keep';

/**
 * The delivery class of an event. Terminal, approval, start and error events
 * are `keep`: losing one leaves a person staring at "typing…" forever or an
 * approval card that never appears.
 *
 * @example
 * deliveryClass({ type: 'heartbeat', runId: 'r1', seq: 4, at: 0 }); // 'heartbeat'
 */
export function deliveryClass(event: { readonly type: AgentEventType }): DeliveryClass {
  switch (event.type) {
    case 'model:delta':
      return 'coalesce';
    case 'heartbeat':
      return 'heartbeat';
    case 'tool:proposed':
    case 'tool:start':
    case 'tool:end':
    case 'model:end':
      return 'progress';
    default:
      return 'keep';
  }
}
