import type { ToolDefinition } from './tool-types.js';

/**
 * The name of the untrusted source a tool's result comes from, as people
 * read it in an approval card: the tool's own `untrustedOutput` text (or
 * what its function says of this `result`), its name for
 * `untrustedOutput: true`, undefined for a result that is trusted.
 *
 * @example
 * untrustedSource({ definition: { ...fetchPage, untrustedOutput: 'the web' }, result }); // 'the web'
 * untrustedSource({ definition: queryOrder, result }); // undefined
 */
export function untrustedSource({
  definition,
  result,
}: {
  definition: Pick<ToolDefinition, 'name' | 'untrustedOutput'>;
  /** What the call returned (the `data` of its outcome). */
  result: unknown;
}): string | undefined {
  const declared = definition.untrustedOutput;
  if (typeof declared === 'function') {
    const named = declared(result);
    return typeof named === 'string' && named.trim() !== '' ? named.trim() : undefined;
  }
  if (typeof declared === 'string' && declared.trim() !== '') return declared.trim();
  return declared === true || typeof declared === 'string' ? definition.name : undefined;
}
