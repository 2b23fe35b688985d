import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { ToolDefinition } from '../tools/tool-types.js';

/** What a tools module's `createTools` is given. */
export interface ToolsModuleContext {
  /** The server's data directory, for a module that keeps its own database. */
  readonly dataDir: string;
}

/**
 * Loads an application's tools for `arbiter serve --tools MODULE`: a module
 * exporting `createTools(context)` (sync or async), or an array of tool
 * definitions as `tools` or as the default export (a default export may also
 * be the `createTools` function). Definitions are checked when the server
 * registers them.
 *
 * @example
 * // my-tools.ts: export function createTools({ dataDir }) { return [queryInvoice, sendInvoice]; }
 * const tools = await loadToolsModule({ path: './my-tools.js', context: { dataDir: '.arbiter' } });
 */
export async function loadToolsModule({
  path,
  context,
}: {
  path: string;
  context: ToolsModuleContext;
}): Promise<readonly ToolDefinition[]> {
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ToolDefinitionError({ message: `tools module ${path} cannot be loaded`, cause: error });
  }
  const candidate = loaded.createTools ?? loaded.tools ?? loaded.default;
  const tools =
    typeof candidate === 'function'
      ? await (candidate as (context: ToolsModuleContext) => unknown)(context)
      : candidate;
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new ToolDefinitionError({
      message: `tools module ${path} must export createTools() or a non-empty array of tool definitions (as "tools" or default)`,
    });
  }
  return tools as readonly ToolDefinition[];
}
