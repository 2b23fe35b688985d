import type { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolDefinition } from '../../tools/tool-types.js';
import { McpConnectionError } from './mcp-connection-error.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { McpServerMount, type McpToolChanges, type McpToolRefusal } from './mcp-server-mount.js';

/** A server none of whose tools could be mounted, and why. */
export interface McpServerFailure {
  readonly server: string;
  /** One line, naming the server; no stack. */
  readonly message: string;
}

/** Several MCP servers, connected and their tools built. */
export interface McpMounts {
  readonly servers: readonly McpServerMount[];
  /** The tools of every server, as they are now. */
  readonly definitions: readonly ToolDefinition[];
  /** Every tool refused at mount time, all servers together. */
  readonly refusals: readonly McpToolRefusal[];
  /** Servers that could not be mounted at all (unreachable, a listing that failed, too large …), one line each. */
  readonly failures: readonly McpServerFailure[];
  /** Registers every server's tools in `registry`, which then follows the servers' list changes. */
  attach(registry: ToolRegistry): void;
  /** Closes every connection (stdio servers exit). */
  close(): Promise<void>;
}

/**
 * Connects to each server and builds its tools; no two get the same name,
 * nor one of `reserved` (a name already taken gets a hashed suffix, see
 * `mcpToolName`). A server that cannot be mounted (unreachable, its
 * listing failed, too large, not a listing) costs only its own tools: it is
 * named in `failures` and every other server is mounted. Anything else
 * thrown (a fault of arbiter's) closes what was opened and rejects.
 *
 * @example
 * const mcp = await openMcpMounts({ servers: await readMcpConfig({ file: 'mcp.json' }), reserved: registry.names });
 * mcp.attach(registry);
 * for (const refusal of mcp.refusals) console.warn(refusal.message);
 */
export async function openMcpMounts({
  servers,
  reserved = [],
  onChange,
}: {
  servers: readonly McpServerConfig[];
  reserved?: readonly string[];
  /** Called after a server's `tools/list_changed` was applied, with what changed (fingerprints, tiers). */
  onChange?: (server: string, changes: McpToolChanges) => void;
}): Promise<McpMounts> {
  const mounts: McpServerMount[] = [];
  const close = async () => {
    await Promise.all(mounts.map((mount) => mount.close()));
  };
  const taken = new Set(reserved);
  const failures: McpServerFailure[] = [];
  try {
    for (const server of servers) {
      let mount: McpServerMount;
      try {
        mount = await McpServerMount.open({
          server,
          reserved: new Set(taken),
          ...(onChange === undefined ? {} : { onChange: (changes: McpToolChanges) => onChange(server.name, changes) }),
        });
      } catch (error) {
        if (!McpConnectionError.isInstance(error)) throw error;
        failures.push({ server: server.name, message: error.message });
        continue;
      }
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
    failures,
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
