import { sha256Hex } from '../../util/sha256.js';

const maxLength = 64;

/**
 * The name an MCP tool is registered under: `<server>_<tool>`, with every
 * character model APIs refuse (`^[a-zA-Z0-9_-]{1,64}$`) turned into `_`.
 * When that is too long, or already taken (`a.b` and `a_b` both become
 * `a_b`), it is cut and ends in `_` and 8 hex digits of the MCP name's
 * hash, so the same tool always gets the same name and two tools never
 * share one.
 *
 * @example
 * mcpToolName({ server: 'files', tool: 'read_text_file', taken: new Set() }); // 'files_read_text_file'
 * mcpToolName({ server: 'ev', tool: 'get.sum', taken: new Set(['ev_get_sum']) }); // 'ev_get_sum_3c2a91f0'
 */
export function mcpToolName({
  server,
  tool,
  taken,
}: {
  server: string;
  tool: string;
  taken: ReadonlySet<string>;
}): string {
  const plain = `${server}_${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (plain.length <= maxLength && !taken.has(plain) && tool !== '') return plain;
  const suffix = `_${sha256Hex(`${server}\u0000${tool}`).slice(0, 8)}`;
  return `${plain.slice(0, maxLength - suffix.length)}${suffix}`;
}
