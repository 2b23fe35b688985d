const maxDepth = 20;

/**
 * JSON as a model reads it best in a sentence: one line, a space after each
 * `:` and `,` (`{"order_id": "SO20260901", "amount_cents": 1999}`).
 *
 * @example
 * renderJson({ sku: 'A1', quantity: 2 }); // '{"sku": "A1", "quantity": 2}'
 */
export function renderJson(value: unknown): string {
  return render(value, 0);
}

function render(value: unknown, depth: number): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (depth >= maxDepth) return Array.isArray(value) ? '[]' : '{}';
  if (Array.isArray(value)) return `[${value.map((item) => render(item, depth + 1)).join(', ')}]`;
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${render(item, depth + 1)}`).join(', ')}}`;
}
