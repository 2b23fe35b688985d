import { pathToFileURL } from 'node:url';
import type { Locale } from '../core/locale.js';
import type { StopReason } from '../core/stop-reason.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { ErrorStyle } from '../evaluation/error-describer.js';
import type { EvalToolkitFactory } from '../evaluation/eval-toolkit.js';
import type { Model } from '../models/model.js';
import { defaultDomainFile } from '../server/default-domain.js';
import type { ToolRegistry, ToolSet } from '../tools/tool-registry.js';

/** What `arbiter demo` asks of the demo (`runDemo`'s options). */
export interface DemoRunOptions {
  readonly errorStyle: ErrorStyle;
  readonly locale: Locale;
  readonly dataDirectory: string;
  readonly approval: 'approve' | 'reject' | 'ask' | 'leave_pending';
  readonly continueWaiting: boolean;
  readonly live: 'progress' | 'ndjson' | 'off';
  readonly tty: boolean;
  readonly writeRaw: (text: string) => void;
  readonly modelLatencyMs: number;
  readonly write: (line: string) => void;
  /** The session's id and the language it runs in (a stored session keeps its own). */
  readonly onSession: (sessionId: string, locale: Locale) => void;
  readonly sessionId?: string;
  /** Adds tools next to the shop's (`--mcp FILE`). */
  readonly mountTools?: (registry: ToolRegistry) => void;
  /** How the commands the demo prints start (`cliInvocation()`). */
  readonly cli?: string;
  /** A real model instead of the scripted one (`--model local:FILE`). */
  readonly model?: Model;
}

/**
 * The default domain module as the CLI uses it (the shop example,
 * `examples/shop/shop-module.ts`): beside the tools module the server
 * loads, the terminal demo, its tools on a demo data directory, and the
 * evaluation suite with its toolkits.
 */
export interface DemoModule {
  runDemo(options: DemoRunOptions): Promise<{ readonly stopReason: StopReason }>;
  resumeDemo(options: {
    sessionId: string;
    dataDirectory: string;
    locale?: Locale;
    write: (line: string) => void;
    cli?: string;
  }): Promise<{ readonly stopReason: StopReason }>;
  openDemoTools(options: { dataDir: string; mustExist?: boolean }): { tools: ToolSet; close: () => void };
  /** The default suite directory of `arbiter eval`. */
  readonly evalSuite: string;
  readonly evalToolkits: Readonly<Record<string, EvalToolkitFactory>>;
}

const members = ['runDemo', 'resumeDemo', 'openDemoTools', 'evalSuite', 'evalToolkits'] as const;

/**
 * Loads the default domain module for the commands that run the demo or
 * act on its data, from where it lies at run time (never imported by
 * `src/`). Missing, or without what the CLI needs, it is a
 * `ToolDefinitionError` naming the file.
 *
 * @example
 * const demo = await loadDemoModule();
 * await demo.runDemo({ ...options, write: console.log });
 */
export async function loadDemoModule(): Promise<DemoModule> {
  const path = defaultDomainFile();
  if (path === undefined) {
    throw new ToolDefinitionError({ message: 'the shop example (examples/shop/shop-module) is not installed' });
  }
  const loaded = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const missing = members.filter((member) => loaded[member] === undefined);
  if (missing.length > 0) {
    throw new ToolDefinitionError({ message: `the demo module ${path} does not export ${missing.join(', ')}` });
  }
  return loaded as unknown as DemoModule;
}
