import type { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolDefinition } from '../../tools/tool-types.js';
import type { A2aAgentConfig } from './a2a-agent-config.js';
import { A2aAgentMount } from './a2a-agent-mount.js';
import { A2aConnectionError } from './a2a-connection-error.js';

/** Several A2A agents, their cards read and their skills built. */
export interface A2aMounts {
  readonly agents: readonly A2aAgentMount[];
  /** The tools of every agent. */
  readonly definitions: readonly ToolDefinition[];
  /** Agents that could not be mounted (a card unreachable or unusable), one line each naming the agent. */
  readonly failures: readonly { readonly agent: string; readonly message: string }[];
  /** Registers every agent's tools in `registry`. */
  attach(registry: ToolRegistry): void;
}

/**
 * Reads each agent's card and builds its tools; no two get the same name,
 * nor one of `reserved`. An agent that cannot be mounted costs only its
 * own tools: it is named in `failures` and every other agent is mounted.
 *
 * @example
 * const a2a = await openA2aMounts({ agents: await readA2aConfig({ file: 'mcp.json' }), reserved: registry.names });
 * a2a.attach(registry);
 */
export async function openA2aMounts({
  agents,
  reserved = [],
  fetchImpl,
}: {
  agents: readonly A2aAgentConfig[];
  reserved?: readonly string[];
  fetchImpl?: typeof fetch;
}): Promise<A2aMounts> {
  const mounts: A2aAgentMount[] = [];
  const failures: { agent: string; message: string }[] = [];
  const taken = new Set(reserved);
  for (const agent of agents) {
    try {
      const mount = await A2aAgentMount.open({
        agent,
        reserved: new Set(taken),
        ...(fetchImpl === undefined ? {} : { fetchImpl }),
      });
      mounts.push(mount);
      for (const skill of mount.skills) taken.add(skill.name);
    } catch (error) {
      if (!A2aConnectionError.isInstance(error)) throw error;
      failures.push({ agent: agent.name, message: error.message });
    }
  }
  return {
    agents: mounts,
    definitions: mounts.flatMap((mount) => mount.definitions),
    failures,
    attach: (registry) => {
      for (const mount of mounts) mount.attach(registry);
    },
  };
}

/**
 * `openA2aMounts` into a registry: the agents' tools go next to what it holds.
 *
 * @example
 * const a2a = await mountA2aAgents({ agents: await readA2aConfig({ file: 'mcp.json' }), registry });
 */
export async function mountA2aAgents({
  agents,
  registry,
}: {
  agents: readonly A2aAgentConfig[];
  registry: ToolRegistry;
}): Promise<A2aMounts> {
  const mounts = await openA2aMounts({ agents, reserved: registry.names });
  mounts.attach(registry);
  return mounts;
}
