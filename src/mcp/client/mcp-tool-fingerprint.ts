import type { SideEffect } from '../../tools/tool-types.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { sha256Hex } from '../../util/sha256.js';

/**
 * The fingerprint of a mounted MCP tool: sha256 of the canonical JSON of
 * what the model and the gate see of it (its arbiter name, the description
 * as mounted, the input schema as mounted, the server's output schema and
 * annotations as listed, the tier decided). Computed once per listing,
 * never per call; two listings of the same tool give the same fingerprint,
 * and any change a person would have to look at again gives another.
 *
 * @example
 * mcpToolFingerprint({ name: 'pay_pay', description: 'Pays.', inputSchema: { type: 'object' }, outputSchema: undefined, annotations: undefined, sideEffect: 'irreversible' });
 * // '3f1c…' (64 hex digits)
 */
export function mcpToolFingerprint({
  name,
  description,
  inputSchema,
  outputSchema,
  annotations,
  sideEffect,
}: {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: unknown;
  sideEffect: SideEffect;
}): string {
  return sha256Hex(
    canonicalJson({
      name,
      description,
      inputSchema,
      outputSchema: outputSchema ?? null,
      annotations: annotations ?? null,
      tier: sideEffect,
    }),
  );
}
