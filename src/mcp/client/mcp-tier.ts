import type { Tool } from '@modelcontextprotocol/client';
import type { SideEffect } from '../../tools/tool-types.js';

const strictness: Readonly<Record<SideEffect, number>> = { read: 0, reversible: 1, irreversible: 2 };

/** A tool's tier and where it came from. */
export interface McpTier {
  readonly sideEffect: SideEffect;
  /** What the annotations alone give. */
  readonly fromAnnotations: SideEffect;
  /** Set when config asked for a less strict tier on an untrusted server: what it asked for, not applied. */
  readonly ignoredOverride?: SideEffect;
}

/**
 * The side-effect tier of an MCP tool: `readOnlyHint: true` → `read`
 * (unless `destructiveHint: true` contradicts it: the stricter claim wins),
 * `destructiveHint: false` → `reversible`, anything else (no annotations
 * included) → `irreversible`. A configured tier applies when it is at least
 * as strict, or when the server is trusted; otherwise it is ignored and
 * reported (`ignoredOverride`), because annotations and config may only
 * ever add caution to what a third party claims.
 *
 * @example
 * mcpTier({ annotations: { readOnlyHint: true } }).sideEffect; // 'read'
 * mcpTier({ annotations: {} , override: 'read' }).sideEffect; // 'irreversible' (override ignored)
 */
export function mcpTier({
  annotations,
  override,
  trusted = false,
}: {
  annotations: Tool['annotations'];
  override?: SideEffect | undefined;
  trusted?: boolean;
}): McpTier {
  // A tool that claims to be read-only and destructive at once gets the stricter claim.
  const fromAnnotations: SideEffect =
    annotations?.readOnlyHint === true && annotations.destructiveHint !== true
      ? 'read'
      : annotations?.destructiveHint === false
        ? 'reversible'
        : 'irreversible';
  if (override === undefined) return { sideEffect: fromAnnotations, fromAnnotations };
  if (trusted || strictness[override] >= strictness[fromAnnotations]) {
    return { sideEffect: override, fromAnnotations };
  }
  return { sideEffect: fromAnnotations, fromAnnotations, ignoredOverride: override };
}

/**
 * The stricter of two tiers: what an untrusted server's re-listed tool
 * keeps, so that a tier only ever tightens after it was first mounted.
 *
 * @example
 * stricterTier('irreversible', 'read'); // 'irreversible'
 */
export function stricterTier(first: SideEffect, second: SideEffect): SideEffect {
  return strictness[first] >= strictness[second] ? first : second;
}
