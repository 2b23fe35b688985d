import type { Context } from 'hono';
import { HttpError } from '../errors/http-error.js';

/**
 * Reads a request body as a JSON object. An empty body is `{}` when
 * `optional`; anything that is not a JSON object is a 400 naming why. The
 * size limit is enforced before this (see `bodyLimit` in `createServer`).
 *
 * @example
 * const body = await readJsonBody(c);
 * const content = requireString(body, 'content', { maxLength: 8000 });
 */
export async function readJsonBody(
  c: Context,
  { optional = false }: { optional?: boolean } = {},
): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') {
    if (optional) return {};
    throw new HttpError({
      status: 400,
      reason: 'invalid_json',
      message: 'request body is empty; expected a JSON object',
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new HttpError({ status: 400, reason: 'invalid_json', message: `request body is not valid JSON: ${detail}` });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError({ status: 400, reason: 'invalid_body', message: 'request body must be a JSON object' });
  }
  return value as Record<string, unknown>;
}

/**
 * A required non-empty string field of a body, at most `maxLength` characters.
 *
 * @example
 * requireString({ content: 'Hi' }, 'content', { maxLength: 8000 }); // 'Hi'
 */
export function requireString(
  body: Readonly<Record<string, unknown>>,
  field: string,
  { maxLength }: { maxLength: number },
): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new HttpError({
      status: 400,
      reason: 'invalid_body',
      message: `"${field}" must be a non-empty string`,
      details: { field },
    });
  }
  if (value.length > maxLength) {
    throw new HttpError({
      status: 400,
      reason: 'invalid_body',
      message: `"${field}" must be at most ${maxLength} characters`,
      details: { field },
    });
  }
  return value;
}

/**
 * An optional field that must be one of `allowed` when present.
 *
 * @example
 * optionalChoice(body, 'locale', ['en', 'zh-CN'] as const); // 'en' | 'zh-CN' | undefined
 */
export function optionalChoice<const Choice extends string>(
  body: Readonly<Record<string, unknown>>,
  field: string,
  allowed: readonly Choice[],
): Choice | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new HttpError({
      status: 400,
      reason: 'invalid_body',
      message: `"${field}" must be one of ${allowed.map((choice) => `"${choice}"`).join(', ')}`,
      details: { field },
    });
  }
  return value as Choice;
}
