import { loadToolsModule } from '../../server/load-tools-module.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { loadDemoModule } from '../demo-module.js';
import type { OpenedTools } from './undo.js';

/**
 * The tools an operational command acts with: the application's own tools
 * module (`--tools MODULE`, loaded as `arbiter serve --tools` loads it:
 * `createTools({ dataDir })` or an exported array) in a registry, or, with
 * no module named, the shop example the demo runs. `mustExist`: the shop
 * opens its database only when it is already there.
 *
 * @example
 * const { tools, close } = await openApplicationTools({ module: './dist/tools.js', dataDir: '.arbiter' });
 */
export async function openApplicationTools({
  module,
  dataDir,
  mustExist = false,
}: {
  module: string | undefined;
  dataDir: string;
  mustExist?: boolean;
}): Promise<OpenedTools> {
  if (module === undefined) return (await loadDemoModule()).openDemoTools({ dataDir, mustExist });
  const loaded = await loadToolsModule({ path: module, context: { dataDir } });
  const registry = new ToolRegistry();
  try {
    for (const tool of loaded.tools) registry.register(tool);
  } catch (error) {
    await loaded.close();
    throw error;
  }
  return { tools: registry, close: () => loaded.close() };
}
