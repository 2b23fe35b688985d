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

/**
 * The name of the untrusted source a tool's own error text (a
 * `RetryableToolError` or `FatalToolError` it threw, whose message reaches
 * the model) comes from. The safe default holds: a tool that declares
 * `untrustedOutput` in any form has every such error counted as untrusted,
 * named as its results are (a function, which judges results, gives way to
 * the tool's name); any other tool's error counts only when it says so
 * itself (`untrusted: true` names the tool, a string names the source).
 * Undefined for an error whose text is the tool's own.
 *
 * @example
 * untrustedErrorSource({ definition: mcpTool, error }); // 'MCP server shop'
 * untrustedErrorSource({ definition: payOrder, error: { untrusted: 'the payment gateway' } }); // 'the payment gateway'
 */
export function untrustedErrorSource({
  definition,
  error,
}: {
  definition: Pick<ToolDefinition, 'name' | 'untrustedOutput'>;
  /** The error the tool threw: only its `untrusted` mark is read. */
  error: { readonly untrusted?: string | true | undefined };
}): string | undefined {
  const said = error.untrusted;
  if (typeof said === 'string' && said.trim() !== '') return said.trim();
  const declared = definition.untrustedOutput;
  if (typeof declared === 'string' && declared.trim() !== '') return declared.trim();
  const marked = said !== undefined || (declared !== undefined && declared !== false);
  return marked ? definition.name : undefined;
}
