import type { ToolRoutingRecord } from '../events/agent-event.js';
import type { RegisteredTool, ToolSet } from '../tools/tool-registry.js';

const routedMarker = Symbol.for('arbiter.routing.routed-tool-set');

/**
 * The tools one step sends after routing: a `ToolSet` of the chosen tools,
 * which remembers the whole mounted set (so a call to a tool that exists but
 * was not sent is told apart from an unknown tool) and the routing record.
 */
export interface RoutedToolSet extends ToolSet {
  readonly [routedMarker]: true;
  /** Every tool mounted for the step, sent or not. */
  readonly mounted: ToolSet;
  readonly routing: ToolRoutingRecord;
}

/**
 * A routed set of the given names, in the order given (routing gives them
 * in the mounted set's order); names not mounted are left out.
 *
 * @example
 * const tools = routedToolSet({ mounted: registry, names: ['query_order'], routing });
 */
export function routedToolSet({
  mounted,
  names,
  routing,
}: {
  mounted: ToolSet;
  names: readonly string[];
  routing: ToolRoutingRecord;
}): RoutedToolSet {
  const byName = new Map<string, RegisteredTool>();
  for (const name of names) {
    const tool = mounted.get(name);
    if (tool !== undefined) byName.set(name, tool);
  }
  const specs = [...byName.values()].map((tool) => tool.spec);
  return {
    [routedMarker]: true,
    names: [...byName.keys()],
    specs,
    get: (name) => byName.get(name),
    mounted,
    routing,
  };
}

/**
 * True for a set made by routing.
 *
 * @example
 * if (isRoutedToolSet(tools) && tools.mounted.get(name) !== undefined) tellNotSent(name);
 */
export function isRoutedToolSet(tools: ToolSet): tools is RoutedToolSet {
  return (tools as Partial<RoutedToolSet>)[routedMarker] === true;
}
