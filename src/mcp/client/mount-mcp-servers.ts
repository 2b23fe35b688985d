import type { ToolRegistry } from '../../tools/tool-registry.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { McpServerMount, type McpToolRefusal } from './mcp-server-mount.js';

/** Several MCP servers mounted into one registry. */
export interface McpMounts {
  readonly servers: readonly McpServerMount[];
  /** Every tool refused at mount time, all servers together. */
  readonly refusals: readonly McpToolRefusal[];
  /** Closes every connection (stdio servers exit). */
  close(): Promise<void>;
}

/**
 * Connects to each server, mounts its tools into `registry` next to what is
 * there (a name already taken gets a hashed suffix, see `mcpToolName`), and
 * keeps them in step with the servers' list changes. One unreachable server
 * fails the whole mount (and closes the others): a configuration that
 * cannot work is said at start, not found mid-run.
 *
 * @example
 * const registry = new ToolRegistry().register(queryOrder);
 * const mcp = await mountMcpServers({ servers: await readMcpConfig({ file: 'mcp.json' }), registry });
 * for (const refusal of mcp.refusals) console.warn(refusal.message);
 */
export async function mountMcpServers({
  servers,
  registry,
}: {
  servers: readonly McpServerConfig[];
  registry: ToolRegistry;
}): Promise<McpMounts> {
  const mounts: McpServerMount[] = [];
  const close = async () => {
    await Promise.all(mounts.map((mount) => mount.close()));
  };
  try {
    for (const server of servers) {
      const mount = await McpServerMount.open({ server, reserved: new Set(registry.names) });
      mounts.push(mount);
      mount.attach(registry);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    servers: mounts,
    get refusals() {
      return mounts.flatMap((mount) => mount.refusals);
    },
    close,
  };
}
