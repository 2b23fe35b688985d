import { readMcpConfig } from '../mcp/client/mcp-server-config.js';
import { type McpMounts, openMcpMounts } from '../mcp/client/mount-mcp-servers.js';

/**
 * The MCP servers of `arbiter demo --mcp FILE`, connected, their tools
 * ready to mount next to the shop's; refusals are said on stderr.
 *
 * @example
 * const mcp = await openDemoMcp({ file: 'mcp.json' });
 * await demo.runDemo({ …, mountTools: (registry) => mcp.attach(registry) });
 * await mcp.close();
 */
export async function openDemoMcp({
  file,
  warn = (line) => process.stderr.write(`${line}\n`),
}: {
  file: string;
  warn?: (line: string) => void;
}): Promise<McpMounts> {
  const mounts = await openMcpMounts({ servers: await readMcpConfig({ file }) });
  for (const server of mounts.servers) {
    warn(`arbiter demo: MCP server "${server.server.name}": ${server.tools.length} tools mounted`);
  }
  for (const failure of mounts.failures) warn(`arbiter demo: warning: not mounted: ${failure.message}`);
  for (const refusal of mounts.refusals) warn(`arbiter demo: warning: not mounted: ${refusal.message}`);
  return mounts;
}
