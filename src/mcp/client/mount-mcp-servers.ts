import type { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolDefinition } from '../../tools/tool-types.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { McpServerMount, type McpToolRefusal } from './mcp-server-mount.js';

/** Several MCP servers, connected and their tools built. */
export interface McpMounts {
  readonly servers: readonly McpServerMount[];
  /** The tools of every server, as they are now. */
  readonly definitions: readonly ToolDefinition[];
  /** Every tool refused at mount time, all servers together. */
  readonly refusals: readonly McpToolRefusal[];
  /** Registers every server's tools in `registry`, which then follows the servers' list changes. */
  attach(registry: ToolRegistry): void;
  /** Closes every connection (stdio servers exit). */
  close(): Promise<void>;
}

/**
 * Connects to each server and builds its tools; no two get the same name,
 * nor one of `reserved` (a name already taken gets a hashed suffix, see
 * `mcpToolName`). One unreachable server fails the whole mount (and closes
 * the others): a configuration that cannot work is said at start, not found
 * mid-run.
 *
 * @example
 * const mcp = await openMcpMounts({ servers: await readMcpConfig({ file: 'mcp.json' }), reserved: registry.names });
 * mcp.attach(registry);
 * for (const refusal of mcp.refusals) console.warn(refusal.message);
 */
export async function openMcpMounts({
  servers,
  reserved = [],
}: {
  servers: readonly McpServerConfig[];
  reserved?: readonly string[];
}): Promise<McpMounts> {
  const mounts: McpServerMount[] = [];
  const close = async () => {
    await Promise.all(mounts.map((mount) => mount.close()));
  };
  const taken = new Set(reserved);
  try {
    for (const server of servers) {
      const mount = await McpServerMount.open({ server, reserved: new Set(taken) });
      mounts.push(mount);
      for (const tool of mount.tools) taken.add(tool.name);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    servers: mounts,
    get definitions() {
      return mounts.flatMap((mount) => mount.definitions);
    },
    get refusals() {
      return mounts.flatMap((mount) => mount.refusals);
    },
    attach: (registry) => {
      for (const mount of mounts) mount.attach(registry);
    },
    close,
  };
}

/**
 * `openMcpMounts` into a registry: the servers' tools go next to what it
 * holds and follow the servers' list changes.
 *
 * @example
 * const registry = new ToolRegistry().register(queryOrder);
 * const mcp = await mountMcpServers({ servers: await readMcpConfig({ file: 'mcp.json' }), registry });
 * // … runs …
 * await mcp.close();
 */
export async function mountMcpServers({
  servers,
  registry,
}: {
  servers: readonly McpServerConfig[];
  registry: ToolRegistry;
}): Promise<McpMounts> {
  const mounts = await openMcpMounts({ servers, reserved: registry.names });
  mounts.attach(registry);
  return mounts;
}
