import type { ToolDefinition } from './tool-types.js';

/**
 * The name of the untrusted source a tool's results come from, as people
 * read it in an approval card: the tool's own `untrustedOutput` text, its
 * name for `untrustedOutput: true`, undefined for a tool whose results are
 * trusted.
 *
 * @example
 * untrustedSource({ ...fetchPage, untrustedOutput: 'the web' }); // 'the web'
 * untrustedSource({ ...queryOrder }); // undefined
 */
export function untrustedSource(definition: Pick<ToolDefinition, 'name' | 'untrustedOutput'>): string | undefined {
  const declared = definition.untrustedOutput;
  if (typeof declared === 'string' && declared.trim() !== '') return declared.trim();
  return declared === true || typeof declared === 'string' ? definition.name : undefined;
}
