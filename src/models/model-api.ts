import { ConfigurationError } from '../errors/configuration-error.js';

/** The variable that chooses the wire API of the configured endpoint. */
export const modelApiVariable = 'ARBITER_API';

/** `chat`: Chat Completions (`OpenAiModel`); `responses`: the Responses API (`OpenAiResponsesModel`). */
export type ModelApi = 'chat' | 'responses';

const shownLength = 40;

/**
 * Reads `ARBITER_API`: `chat` (also when unset or empty) or `responses`.
 * Any other value is a `ConfigurationError` (setting `ARBITER_API`) that
 * names both choices; nothing falls back silently to the other API.
 *
 * @example
 * readModelApi({ ARBITER_API: 'responses' }); // 'responses'
 * readModelApi({}); // 'chat'
 */
export function readModelApi(env: Readonly<Record<string, string | undefined>> = process.env): ModelApi {
  const value = env[modelApiVariable]?.trim() ?? '';
  if (value === '' || value === 'chat') return 'chat';
  if (value === 'responses') return 'responses';
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  const shown = printable.length > shownLength ? `${printable.slice(0, shownLength)}…` : printable;
  throw new ConfigurationError({
    setting: modelApiVariable,
    message: `${modelApiVariable} must be "chat" (Chat Completions, the default) or "responses" (the Responses API), not "${shown}"`,
  });
}
