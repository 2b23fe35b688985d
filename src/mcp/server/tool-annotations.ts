import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { RegisteredTool } from '../../tools/tool-registry.js';

/**
 * What an MCP client is told about a tool, from its side-effect tier:
 * `read` → `readOnlyHint: true`; `reversible` → `destructiveHint: false`;
 * `irreversible` → `destructiveHint: true`; `idempotentHint: true` when the
 * tool declares an idempotency key (a repeated call returns the first
 * outcome), or for a `read`. The hints describe; arbiter's gate decides
 * anyway, whatever the client makes of them.
 *
 * @example
 * toolAnnotations(registry.get('refund_order')!); // { title: 'refund_order', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
 */
export function toolAnnotations(tool: RegisteredTool): ToolAnnotations {
  const { sideEffect, idempotencyKey } = tool.definition;
  const readOnly = sideEffect === 'read';
  return {
    title: tool.definition.name,
    readOnlyHint: readOnly,
    ...(readOnly ? {} : { destructiveHint: sideEffect === 'irreversible' }),
    idempotentHint: readOnly || idempotencyKey !== undefined,
    openWorldHint: false,
  };
}
