import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { GateRule } from '../gate/tier-gate.js';
import type { ToolDefinition } from '../tools/tool-types.js';
import { isRecord } from '../util/is-record.js';

/** What a tools module's `createTools` is given. */
export interface ToolsModuleContext {
  /** The server's data directory, for a module that keeps its own database. */
  readonly dataDir: string;
}

/** An application's domain as the server uses it: its tools, the gate rules over them, and what to close. */
export interface ToolsModule {
  readonly tools: readonly ToolDefinition[];
  /** Configured gate rules (hard caps, calls always sent to a person); `[]` when the module gives none. */
  readonly gateRules: readonly GateRule[];
  /** Releases what `createTools` opened (a database); called when the server has stopped. */
  readonly close: () => void | Promise<void>;
}

/**
 * Loads an application's domain for `arbiter serve --tools MODULE`. The
 * module exports one of:
 *
 * - `createTools(context)` (sync or async, also as the default export),
 *   returning the tool definitions, or `{ tools, gateRules?, close? }`;
 * - `tools`, an array of tool definitions (or an array as the default export).
 *
 * Beside either, a module may export `gateRules`: an array of `GateRule`s
 * (`createTierGate`'s configured rules, e.g. a hard cap that denies
 * outright). The server applies them to every call, before each tool's own
 * approval rule; giving rules both ways is refused, so nothing is silently
 * dropped. Rules are checked when the server builds its gate (an unknown
 * tool name, a rule without a comparison is a `GateRuleError`), tool
 * definitions when it registers them.
 *
 * @example
 * // my-tools.ts
 * export const gateRules = [{ tool: 'send_invoice', when: { field: 'total_cents', above: 1_000_000 }, effect: 'deny',
 *   rule: 'invoice_cap', message: 'Invoices above 10,000.00 are issued by accounting.' }];
 * export function createTools({ dataDir }) { return [queryInvoice, sendInvoice]; }
 * // the server
 * const { tools, gateRules, close } = await loadToolsModule({ path: './my-tools.js', context: { dataDir: '.arbiter' } });
 */
export async function loadToolsModule({
  path,
  context,
}: {
  path: string;
  context: ToolsModuleContext;
}): Promise<ToolsModule> {
  let loaded: Record<string, unknown>;
  const absolute = resolve(path);
  try {
    loaded = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ToolDefinitionError({
      message: `tools module ${path} cannot be loaded: ${whyNotLoaded({ error, path, absolute })}`,
      cause: error,
    });
  }
  const candidate = loaded.createTools ?? loaded.tools ?? loaded.default;
  const created =
    typeof candidate === 'function'
      ? await (candidate as (context: ToolsModuleContext) => unknown)(context)
      : candidate;
  const returned = isRecord(created) ? created : { tools: created };
  const tools = returned.tools;
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new ToolDefinitionError({
      message:
        `tools module ${path} must export createTools() or a non-empty array of tool definitions ` +
        '(as "tools" or default); createTools() may return the array or { tools, gateRules, close }',
    });
  }
  if (returned.gateRules !== undefined && loaded.gateRules !== undefined) {
    throw new ToolDefinitionError({
      message: `tools module ${path} gives gate rules twice (exported "gateRules" and returned by createTools); give them once`,
    });
  }
  const gateRules = returned.gateRules ?? loaded.gateRules ?? [];
  if (!Array.isArray(gateRules) || !gateRules.every(isRecord)) {
    throw new ToolDefinitionError({ message: `tools module ${path}: "gateRules" must be an array of gate rules` });
  }
  const close = typeof returned.close === 'function' ? (returned.close as ToolsModule['close']) : () => {};
  return { tools: tools as readonly ToolDefinition[], gateRules: gateRules as unknown as readonly GateRule[], close };
}

/** TypeScript's extensions, which Node without a loader refuses (`ERR_UNKNOWN_FILE_EXTENSION`). */
const typeScriptExtension = /\.(?:ts|mts|cts|tsx)$/;

/**
 * Why a tools module did not load, whole: the module's own error with every
 * line (a tool definition's fields and the fix), `there is no file` only
 * when the module itself is missing (not a package it imports), and how to
 * run a TypeScript module.
 */
function whyNotLoaded({ error, path, absolute }: { error: unknown; path: string; absolute: string }): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error ? error.code : undefined;
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && typeScriptExtension.test(absolute)) {
    const javaScript = path.replace(typeScriptExtension, '.js');
    return (
      `Node runs JavaScript, and ${path} is TypeScript. Compile it first (tsc, then --tools ${javaScript}), ` +
      `or run arbiter under a TypeScript loader: npm install --save-dev tsx, then ` +
      `NODE_OPTIONS="--import tsx" npx arbiter serve --tools ${path}`
    );
  }
  const notFound = `Cannot find module '${absolute}'`;
  if (code === 'ERR_MODULE_NOT_FOUND' && error.message.startsWith(notFound)) return `there is no file ${absolute}`;
  return error.message;
}
