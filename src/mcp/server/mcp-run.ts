import { type ExternalRunRecords, recordExternalRun } from '../../adapters/external-run.js';
import type { Locale } from '../../core/locale.js';
import type { Principal } from '../../core/principal.js';
import { sha256Hex } from '../../util/sha256.js';

/** Every MCP run id starts so; nothing else arbiter makes does. */
const mcpRunPrefix = 'mcp_';

/**
 * The run an MCP principal's tool calls belong to: one per tenant and
 * user, so the audit groups a principal's MCP calls, an approval is bound
 * to its requester's run (argument hash and all), and another principal's
 * identical call is another run's, with its own approval.
 *
 * @example
 * mcpRunId({ tenantId: 'shop', userId: 'C1001', roles: [] }); // 'mcp_3b1f…'
 */
export function mcpRunId(principal: Principal): string {
  // JSON of the pair: no tenant and user ids, whatever characters they hold, make another pair's text.
  return `${mcpRunPrefix}${sha256Hex(JSON.stringify([principal.tenantId, principal.userId])).slice(0, 32)}`;
}

/**
 * Whether a run is an MCP principal's (no session, no model: nothing to
 * resume after an approval; the client repeats its call instead).
 *
 * @example
 * if (!isMcpRunId(run.runId)) manager.resume({ runId: run.runId });
 */
export function isMcpRunId(runId: string): boolean {
  return runId.startsWith(mcpRunPrefix) && /^[0-9a-f]{32}$/.test(runId.slice(mcpRunPrefix.length));
}

/** Where the server's runs are recorded (`ServerRuns` on SQLite): what MCP calls need of it. */
export type McpRunRecords = ExternalRunRecords;

/**
 * Makes sure the principal's MCP run is recorded, with its tenant and
 * principal: the approval routes read them to keep other tenants out and
 * to apply the four-eyes rule (see `recordExternalRun`).
 *
 * @example
 * await recordMcpRun({ runs, principal, locale: 'en' });
 */
export function recordMcpRun({
  runs,
  principal,
  locale,
}: {
  runs: McpRunRecords;
  principal: Principal;
  locale: Locale;
}): Promise<string> {
  return recordExternalRun({ runs, runId: mcpRunId(principal), principal, locale });
}
