import type { RegisteredTool } from '../tools/tool-registry.js';
import { type ToolFieldPolicy, toolFieldPolicy } from './sensitive-fields.js';

/**
 * The field policy `displayArguments` redacts a tool's arguments with, made
 * once per registered tool: its `sensitive` list, its schema (for
 * `"x-sensitive": true`) and its bound parameters; for a tool not
 * registered, the name heuristics alone.
 *
 * @example
 * const policyOf = toolFieldPolicies();
 * displayArguments(args, policyOf(registry.get('apply_refund')));
 */
export function toolFieldPolicies(): (registered: RegisteredTool | undefined) => ToolFieldPolicy {
  const policies = new WeakMap<RegisteredTool, ToolFieldPolicy>();
  const heuristicOnly = toolFieldPolicy({});
  return (registered) => {
    if (registered === undefined) return heuristicOnly;
    let policy = policies.get(registered);
    if (policy === undefined) {
      const { definition } = registered;
      policy = toolFieldPolicy({
        sensitive: definition.sensitive ?? [],
        parameters: definition.parameters,
        boundParameters: [...registered.boundParameterNames, ...Object.keys(definition.boundParameters ?? {})],
      });
      policies.set(registered, policy);
    }
    return policy;
  };
}
