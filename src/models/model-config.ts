import { ModelError } from '../errors/model-error.js';

/** Where the model lives and which one to use. */
export interface ModelConfig {
  /** An OpenAI-compatible base URL, e.g. `https://api.openai.com/v1`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
}

/** The variable naming a second model (same endpoint or provider), tried when the first keeps failing. */
export const fallbackModelVariable = 'ARBITER_FALLBACK_MODEL';

const variables = {
  baseUrl: 'ARBITER_BASE_URL',
  apiKey: 'ARBITER_API_KEY',
  model: 'ARBITER_MODEL',
} as const;

/**
 * Reads the model endpoint from `ARBITER_BASE_URL`, `ARBITER_API_KEY` and
 * `ARBITER_MODEL`. Throws a `ModelError` of kind `request` naming every
 * variable that is missing or empty (or a base URL that is not an http(s)
 * URL); the message never contains any variable's value. A caller that wants
 * an offline fallback checks `hasModelConfig` first.
 *
 * @example
 * const model = new OpenAiModel(readModelConfig());
 */
export function readModelConfig(env: Readonly<Record<string, string | undefined>> = process.env): ModelConfig {
  const baseUrl = env[variables.baseUrl]?.trim() ?? '';
  const apiKey = env[variables.apiKey]?.trim() ?? '';
  const model = env[variables.model]?.trim() ?? '';

  const missing = Object.entries({ baseUrl, apiKey, model })
    .filter(([, value]) => value === '')
    .map(([field]) => variables[field as keyof typeof variables]);
  if (missing.length > 0) {
    // Another tool's variable set for arbiter: say which one arbiter reads instead.
    const borrowed = missing
      .map((name) => name.replace('ARBITER_', 'OPENAI_'))
      .filter((name) => (env[name]?.trim() ?? '') !== '')
      .map((name) => `${name} is set, but arbiter reads ${name.replace('OPENAI_', 'ARBITER_')}`);
    const hint = borrowed.length === 0 ? '' : `; ${borrowed.join('; ')}`;
    throw new ModelError({
      kind: 'request',
      message: `model configuration incomplete: set ${missing.join(', ')} (an OpenAI-compatible base URL, its API key and a model id)${hint}`,
    });
  }
  if (!isHttpUrl(baseUrl)) {
    throw new ModelError({
      kind: 'request',
      message: `model configuration invalid: ${variables.baseUrl} must be an http(s) URL such as https://api.openai.com/v1`,
    });
  }
  return { baseUrl, apiKey, model };
}

/**
 * True when all three model variables are set, so a caller can choose an
 * offline model instead of failing.
 *
 * @example
 * const model = hasModelConfig() ? new OpenAiModel(readModelConfig()) : scriptedModel;
 */
export function hasModelConfig(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return Object.values(variables).every((name) => (env[name]?.trim() ?? '') !== '');
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
