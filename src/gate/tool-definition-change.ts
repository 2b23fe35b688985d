import type { ToolDefinitionChange } from '../tools/tool-registry.js';
import { argumentsHash } from '../util/sha256.js';
import type { AuditEntry } from './audit-log.js';

/** The audit row of a definition change carries this outcome; it is no call, and no rule counts it. */
export const toolDefinitionChangedOutcome = 'definition_changed';

/**
 * The audit row of a pinned tool whose definition changed after it was
 * mounted (`ToolRegistry.onDefinitionChange`): under the tool's name, with
 * the old and new fingerprints and tiers as its arguments and the new
 * fingerprint as its own, so the audit of a tool shows every definition it
 * had and which one each call ran under. `source` says who changed it
 * (e.g. `mcp:payments`). Its outcome `definition_changed` keeps it out of
 * every rule's history (those read outcome `ok`).
 *
 * @example
 * registry.onDefinitionChange((change) => audit.append(toolDefinitionChangeEntry({ change, at: Date.now() })));
 */
export function toolDefinitionChangeEntry({
  change,
  at,
  source = 'provider',
}: {
  change: ToolDefinitionChange;
  at: number;
  source?: string;
}): AuditEntry {
  const changeArguments = {
    old_fingerprint: change.oldFingerprint,
    new_fingerprint: change.newFingerprint,
    old_tier: change.oldSideEffect,
    new_tier: change.newSideEffect,
  };
  const id = `definition_${change.newFingerprint.slice(0, 16)}_${at}`;
  return {
    at,
    sessionId: undefined,
    runId: id,
    step: 0,
    toolCallId: id,
    tool: change.name,
    sideEffect: change.newSideEffect,
    argumentsHash: argumentsHash(changeArguments),
    arguments: changeArguments,
    decision: 'allowed',
    rule: 'tool_definition_pinned',
    approver: source,
    toolFingerprint: change.newFingerprint,
    outcome: toolDefinitionChangedOutcome,
    durationMs: 0,
  };
}
