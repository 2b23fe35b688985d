import type { ToolDefinition } from './tool-types.js';

/**
 * Declares a tool. The definition is checked when it is registered (see
 * `ToolRegistry`), so a broken schema fails at start-up, not mid-run.
 *
 * @example
 * const queryOrder = defineTool<{ order_id: string }>({
 *   name: 'query_order',
 *   description: 'Look up one order by number. Not for shipments: use track_shipment.',
 *   parameters: {
 *     type: 'object',
 *     properties: {
 *       order_id: { type: 'string', description: 'Order number, SO + 8 digits', pattern: '^SO\\d{8}$', examples: ['SO20260901'] },
 *     },
 *     required: ['order_id'],
 *   },
 *   sideEffect: 'read',
 *   execute: ({ order_id }) => orders.find(order_id),
 * });
 */
export function defineTool<Args = Record<string, unknown>, Result = unknown>(
  definition: ToolDefinition<Args, Result>,
): ToolDefinition<Args, Result> {
  return definition;
}
