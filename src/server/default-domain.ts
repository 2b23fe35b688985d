import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Locale } from '../core/locale.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { Model } from '../models/model.js';
import type { Script } from '../models/script.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { loadToolsModule, type ToolsModule } from './load-tools-module.js';
import { type StreamingDelay, withStreamingDelay } from './with-streaming-delay.js';

/**
 * @module
 * The domain the server and the CLI use when they are given none: the shop
 * example, loaded as an ordinary tools module at run time from where it
 * lies beside `src/` (`examples/shop/shop-module.ts` in a checkout,
 * `dist/examples/shop/shop-module.js` built and installed). Nothing in
 * `src/` imports it, so arbiter works without it; without it, only the
 * defaults that need it fail, naming the file they looked for.
 */

/** What the default domain module exports beside the tools module's `createTools`. */
export interface DefaultDomainModule {
  /** The offline chat model's script per language (`arbiter serve` without `--model` or `--script`). */
  readonly chatScripts: Readonly<Record<Locale, Script>>;
  /** What a real model is told about its job, per language. */
  readonly systemPrompts: Readonly<Record<Locale, string>>;
}

/** The default domain, loaded. */
export interface DefaultDomain extends DefaultDomainModule {
  /** The module file, for messages and for commands that load it themselves. */
  readonly path: string;
  /** Its tools and gate rules on its database in `dataDir` (`:memory:` keeps nothing), to close after use. */
  open(context: { dataDir: string }): Promise<ToolsModule>;
  /** The offline chat model for a language, paced for a person to watch unless `delay` is `false`. */
  chatModel(options: { locale: Locale; delay?: StreamingDelay | false }): Model;
}

const moduleBase = new URL('../../examples/shop/shop-module', import.meta.url);

/**
 * The default domain module's file: the built `.js` beside `dist/src/`, or
 * in a checkout the `.ts` source; `undefined` when neither is there.
 *
 * @example
 * defaultDomainFile(); // '/…/node_modules/@arbiter-runtime/core/dist/examples/shop/shop-module.js'
 */
export function defaultDomainFile(): string | undefined {
  const base = fileURLToPath(moduleBase);
  return ['.js', '.ts'].map((extension) => `${base}${extension}`).find((file) => existsSync(file));
}

/**
 * Loads the default domain (the shop example). A missing or incomplete
 * module is a `ToolDefinitionError` that says to give tools of one's own.
 *
 * @example
 * const shop = await loadDefaultDomain();
 * const { tools, gateRules, close } = await shop.open({ dataDir: '.arbiter' });
 * const model = shop.chatModel({ locale: 'en', delay: false });
 */
export async function loadDefaultDomain(): Promise<DefaultDomain> {
  const path = defaultDomainFile();
  if (path === undefined) {
    throw new ToolDefinitionError({
      message:
        `no tools given, and the default domain (the shop example) is not at ${fileURLToPath(moduleBase)}.js: ` +
        'give your own tools (createServer/startServer `tools`, arbiter serve --tools MODULE)',
    });
  }
  const loaded = (await import(pathToFileURL(path).href)) as Partial<DefaultDomainModule>;
  const { chatScripts, systemPrompts } = loaded;
  if (chatScripts === undefined || systemPrompts === undefined) {
    throw new ToolDefinitionError({ message: `default domain ${path} must export chatScripts and systemPrompts` });
  }
  return {
    path,
    chatScripts,
    systemPrompts,
    open: ({ dataDir }) => loadToolsModule({ path, context: { dataDir } }),
    chatModel: ({ locale, delay = { firstTokenMs: 400, deltaMs: 15 } }) => {
      const model = new ScriptedModel({ script: chatScripts[locale] });
      return delay === false ? model : withStreamingDelay(model, delay);
    },
  };
}
