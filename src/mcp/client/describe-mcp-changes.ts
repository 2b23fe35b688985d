import type { McpToolChanges } from './mcp-server-mount.js';

/**
 * What a server's `tools/list_changed` changed, as log lines for the
 * operator: tools added and removed, and per changed tool its old and new
 * fingerprint and tier (a tier the untrusted server tried to lower, kept).
 *
 * @example
 * describeMcpChanges({ server: 'pay', changes });
 * // ['MCP server "pay": tool "pay_evil_pay" changed: fingerprint 3f1c… → 9a0b…; tier irreversible kept (re-listed as read; the server is not trusted)']
 */
export function describeMcpChanges({ server, changes }: { server: string; changes: McpToolChanges }): string[] {
  const lines: string[] = [];
  if (changes.added.length > 0) lines.push(`MCP server "${server}": tools added: ${changes.added.join(', ')}`);
  if (changes.removed.length > 0) lines.push(`MCP server "${server}": tools removed: ${changes.removed.join(', ')}`);
  for (const change of changes.definitions) {
    const tier =
      change.loosenedTierIgnored !== undefined
        ? `tier ${change.newTier} kept (re-listed as ${change.loosenedTierIgnored}; the server is not trusted)`
        : change.oldTier === change.newTier
          ? `tier ${change.newTier}`
          : `tier ${change.oldTier} → ${change.newTier}`;
    lines.push(
      `MCP server "${server}": tool "${change.name}" changed: fingerprint ${change.oldFingerprint} → ${change.newFingerprint}; ${tier}`,
    );
  }
  return lines;
}
