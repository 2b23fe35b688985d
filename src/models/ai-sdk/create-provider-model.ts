import { ConfigurationError } from '../../errors/configuration-error.js';
import { isRecord } from '../../util/is-record.js';
import { fallbackModelVariable } from '../model-config.js';
import type { ModelDecision } from '../model-decision.js';
import { ResilientModel } from '../resilient-model.js';
import type { RetryPolicyOptions } from '../retry-policy.js';
import { AiSdkModel } from './ai-sdk-model.js';
import type { AiSdkLanguageModel } from './language-model-spec.js';

/** The variable naming the AI SDK provider: `anthropic`, `google`, or a provider package's name. */
export const providerVariable = 'ARBITER_PROVIDER';

/** Short names for the providers most used; any other value is taken as the package's name. */
export const providerPackages: Readonly<Record<string, string>> = {
  anthropic: '@ai-sdk/anthropic',
  google: '@ai-sdk/google',
};

const packageName = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** The provider the environment configures: its package and the model ids to use. */
export interface ConfiguredProvider {
  /** The package imported, e.g. `@ai-sdk/anthropic`. */
  readonly packageName: string;
  readonly model: string;
  readonly fallbackModel: string | undefined;
}

/**
 * Reads `ARBITER_PROVIDER` and `ARBITER_MODEL` (optional
 * `ARBITER_FALLBACK_MODEL`). Undefined when `ARBITER_PROVIDER` is unset, so
 * a caller falls back to the OpenAI-compatible endpoint. A provider that is
 * not a package name (a path, a URL) or a missing model is a
 * `ConfigurationError` naming the variable.
 *
 * @example
 * readConfiguredProvider({ ARBITER_PROVIDER: 'anthropic', ARBITER_MODEL: 'claude-sonnet-4-5' });
 * // { packageName: '@ai-sdk/anthropic', model: 'claude-sonnet-4-5', fallbackModel: undefined }
 */
export function readConfiguredProvider(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConfiguredProvider | undefined {
  const provider = env[providerVariable]?.trim() ?? '';
  if (provider === '') return undefined;
  const name = Object.hasOwn(providerPackages, provider) ? (providerPackages[provider] as string) : provider;
  if (!packageName.test(name)) {
    throw new ConfigurationError({
      setting: providerVariable,
      message: `${providerVariable} must be anthropic, google or the name of an installed AI SDK provider package (such as @ai-sdk/mistral), not a path or URL`,
    });
  }
  const model = env['ARBITER_MODEL']?.trim() ?? '';
  if (model === '') {
    throw new ConfigurationError({
      setting: 'ARBITER_MODEL',
      message: `${providerVariable}=${provider} needs ARBITER_MODEL: the provider's model id (e.g. claude-sonnet-4-5)`,
    });
  }
  const fallback = env[fallbackModelVariable]?.trim() ?? '';
  return { packageName: name, model, fallbackModel: fallback === '' ? undefined : fallback };
}

/** A provider: callable with a model id, as every AI SDK provider is. */
type ProviderFunction = (modelId: string) => AiSdkLanguageModel;

/**
 * The model `arbiter serve --model configured` and `arbiter eval --model
 * configured` use when `ARBITER_PROVIDER` is set: the installed provider
 * package, loaded by dynamic import (arbiter itself never depends on it),
 * its model `ARBITER_MODEL` as an `AiSdkModel`, behind a `ResilientModel`
 * (with `ARBITER_FALLBACK_MODEL` of the same provider as the fallback).
 *
 * The provider reads its usual variables (`ANTHROPIC_API_KEY`,
 * `GOOGLE_GENERATIVE_AI_API_KEY`, …). `ARBITER_BASE_URL` and
 * `ARBITER_API_KEY`, when set, are passed to the package's `create…`
 * function as `baseURL` and `apiKey` (a proxy, a gateway, a local fake).
 * A package that is not installed is a `ConfigurationError` whose one line
 * says which package to install.
 *
 * @example
 * // ARBITER_PROVIDER=anthropic ARBITER_MODEL=claude-sonnet-4-5 ANTHROPIC_API_KEY=…
 * const model = await createProviderModel();
 */
export async function createProviderModel({
  env = process.env,
  policy,
  onDecision,
  timeoutMs,
  importModule = (specifier) => import(specifier),
}: {
  env?: Readonly<Record<string, string | undefined>>;
  policy?: RetryPolicyOptions;
  onDecision?: (decision: ModelDecision) => void;
  timeoutMs?: number;
  /** How the package is imported; tests replace it. */
  importModule?: (specifier: string) => Promise<unknown>;
} = {}): Promise<ResilientModel> {
  const configured = readConfiguredProvider(env);
  if (configured === undefined) {
    throw new ConfigurationError({
      setting: providerVariable,
      message: `${providerVariable} is not set: name the AI SDK provider (anthropic, google or a package name)`,
    });
  }
  const provider = await loadProvider({ configured, env, importModule });
  const model = (id: string) =>
    new AiSdkModel({ languageModel: provider(id), ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  return new ResilientModel({
    primary: model(configured.model),
    ...(configured.fallbackModel === undefined ? {} : { fallback: model(configured.fallbackModel) }),
    ...(policy === undefined ? {} : { policy }),
    ...(onDecision === undefined ? {} : { onDecision }),
  });
}

async function loadProvider({
  configured,
  env,
  importModule,
}: {
  configured: ConfiguredProvider;
  env: Readonly<Record<string, string | undefined>>;
  importModule: (specifier: string) => Promise<unknown>;
}): Promise<ProviderFunction> {
  const { packageName: name } = configured;
  let loaded: unknown;
  try {
    loaded = await importModule(name);
  } catch (error) {
    const notFound =
      isRecord(error) &&
      (error['code'] === 'ERR_MODULE_NOT_FOUND' || error['code'] === 'MODULE_NOT_FOUND') &&
      typeof error['message'] === 'string' &&
      error['message'].includes(`'${name}'`);
    throw new ConfigurationError({
      setting: providerVariable,
      message: notFound
        ? `${providerVariable} names ${name}, which is not installed: npm install ${name}`
        : `${providerVariable}: ${name} could not be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      cause: error,
    });
  }
  const exports = isRecord(loaded) ? loaded : {};
  const settings = {
    ...(nonEmpty(env['ARBITER_BASE_URL']) === undefined ? {} : { baseURL: nonEmpty(env['ARBITER_BASE_URL']) }),
    ...(nonEmpty(env['ARBITER_API_KEY']) === undefined ? {} : { apiKey: nonEmpty(env['ARBITER_API_KEY']) }),
  };
  const candidates =
    Object.keys(settings).length === 0
      ? Object.values(exports).filter(isProvider)
      : Object.entries(exports)
          .filter(([key, value]) => /^create[A-Z]/.test(key) && typeof value === 'function')
          .map(([, create]) => (create as (options: unknown) => unknown)(settings))
          .filter(isProvider);
  const provider = candidates[0];
  if (provider === undefined) {
    throw new ConfigurationError({
      setting: providerVariable,
      message: `${providerVariable}: ${name} exports no AI SDK provider (a function with languageModel)`,
    });
  }
  return (modelId) => {
    const languageModel = provider(modelId);
    if (!isLanguageModel(languageModel)) {
      throw new ConfigurationError({
        setting: providerVariable,
        message: `${providerVariable}: ${name} gave no language model of spec v3 or v4 for ${modelId} (AI SDK 6 or 7 providers)`,
      });
    }
    return languageModel;
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? undefined : trimmed;
}

function isProvider(value: unknown): value is (modelId: string) => unknown {
  return typeof value === 'function' && typeof (value as { languageModel?: unknown }).languageModel === 'function';
}

function isLanguageModel(value: unknown): value is AiSdkLanguageModel {
  return (
    isRecord(value) &&
    (value['specificationVersion'] === 'v3' || value['specificationVersion'] === 'v4') &&
    typeof value['doStream'] === 'function'
  );
}
