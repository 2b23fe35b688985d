import { displayArguments, type ToolFieldPolicy, toolFieldPolicy } from '../events/sensitive-fields.js';
import type { RegisteredTool, ToolSet } from '../tools/tool-registry.js';

/** Turns a call's raw arguments into the text an exported span may carry, or undefined for none. */
export type ToolArgumentsForExport = (tool: string, rawArguments: string) => string | undefined;

/**
 * The redaction applied when a span exporter is allowed to see tool
 * arguments (`gen_ai.tool.call.arguments`): the same as an approval card's,
 * `displayArguments` with the tool's field policy — bound parameters
 * (user id, tenant id) removed, and at any depth every value under a field
 * the tool lists as `sensitive`, flags `"x-sensitive": true` in its schema,
 * or whose name reads like personal data (phone, email, address, card
 * number, passport…) replaced by `[redacted]`. Arguments that are not a JSON
 * object are not exported at all: nothing tells which part is sensitive.
 *
 * @example
 * const exportable = redactToolArguments({ tools: registry });
 * exportable('apply_refund', '{"order_id":"SO1","card_number":"4111…"}');
 * // '{"order_id":"SO1","card_number":"[redacted]"}'
 */
export function redactToolArguments({ tools }: { tools?: Pick<ToolSet, 'get'> } = {}): ToolArgumentsForExport {
  const policies = new WeakMap<RegisteredTool, ToolFieldPolicy>();
  const heuristicOnly = toolFieldPolicy({});
  const policyOf = (name: string): ToolFieldPolicy => {
    const registered = tools?.get(name);
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
  return (tool, rawArguments) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawArguments);
    } catch {
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    return JSON.stringify(displayArguments(parsed as Record<string, unknown>, policyOf(tool)));
  };
}
