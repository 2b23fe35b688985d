import { displayArguments } from '../events/sensitive-fields.js';
import { toolFieldPolicies } from '../events/tool-field-policies.js';
import type { ToolSet } from '../tools/tool-registry.js';

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
  const policyOf = toolFieldPolicies();
  return (tool, rawArguments) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawArguments);
    } catch {
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    return JSON.stringify(displayArguments(parsed as Record<string, unknown>, policyOf(tools?.get(tool))));
  };
}
