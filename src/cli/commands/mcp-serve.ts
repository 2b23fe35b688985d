import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Locale } from '../../core/locale.js';
import type { Principal } from '../../core/principal.js';
import { UsageError } from '../../errors/usage-error.js';
import { createTierGate } from '../../gate/tier-gate.js';
import type { McpToolPipeline } from '../../mcp/server/call-tool-through-gate.js';
import { createArbiterMcpServer } from '../../mcp/server/create-arbiter-mcp-server.js';
import { loadDefaultDomain } from '../../server/default-domain.js';
import { loadToolsModule, type ToolsModule } from '../../server/load-tools-module.js';
import { SqliteApprovalBroker } from '../../store/sqlite/sqlite-approval-broker.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { SqliteIdempotencyStore } from '../../store/sqlite/sqlite-idempotency-store.js';
import { ServerRuns } from '../../store/sqlite/sqlite-server-runs.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../../tools/tool-registry.js';

/** `arbiter mcp serve`'s flags, checked. */
export interface McpServeFlags {
  readonly principal: Principal;
  readonly toolsModule: string | undefined;
  readonly dataDir: string;
  readonly locale: Locale;
  /** The person at the client decides held calls there (form elicitation), as the principal: four eyes off. */
  readonly approveInClient: boolean;
}

/**
 * Reads `arbiter mcp serve`'s flags, the principal from `--tenant`,
 * `--user`, `--roles` or else `ARBITER_MCP_TENANT`, `ARBITER_MCP_USER`,
 * `ARBITER_MCP_ROLES` (comma-separated); without a tenant and a user it is
 * a `UsageError`: stdio has no bearer token to take them from.
 *
 * @example
 * parseMcpServeFlags(['--tenant', 'shop', '--user', 'C1001'], {}).principal; // { tenantId: 'shop', userId: 'C1001', roles: [] }
 */
export function parseMcpServeFlags(
  args: readonly string[],
  environment: Readonly<Record<string, string | undefined>>,
): McpServeFlags {
  const { values } = parseArgs({
    args: [...args],
    options: {
      tenant: { type: 'string' },
      user: { type: 'string' },
      roles: { type: 'string' },
      tools: { type: 'string' },
      'data-dir': { type: 'string', default: '.arbiter' },
      lang: { type: 'string', default: 'en' },
      'approve-in-client': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const given = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());
  const tenantId = given(values.tenant) ?? given(environment['ARBITER_MCP_TENANT']);
  const userId = given(values.user) ?? given(environment['ARBITER_MCP_USER']);
  if (tenantId === undefined || userId === undefined) {
    throw new UsageError({
      message:
        'mcp serve acts for one principal: give --tenant ID and --user ID (or ARBITER_MCP_TENANT and ARBITER_MCP_USER)',
    });
  }
  const roles = (given(values.roles) ?? given(environment['ARBITER_MCP_ROLES']) ?? '')
    .split(',')
    .map((role) => role.trim())
    .filter((role) => role !== '');
  const lang = values.lang;
  if (lang !== 'en' && lang !== 'zh-CN') throw new UsageError({ message: `--lang must be en or zh-CN, got "${lang}"` });
  return {
    principal: { tenantId, userId, roles },
    toolsModule: values.tools,
    dataDir: values['data-dir'],
    locale: lang,
    approveInClient: values['approve-in-client'],
  };
}

/**
 * `arbiter mcp serve`: arbiter's tools as an MCP server over stdio (the
 * SDK's `serveStdio`: 2025-11-25 and 2026-07-28 clients), for the principal
 * of the flags, on the store in `--data-dir` (the one `arbiter approve`,
 * `arbiter audit` and `arbiter serve` use). Serves until stdin ends; writes
 * nothing but MCP to stdout. Returns the exit code.
 *
 * @example
 * process.exitCode = await runMcpServe({ args: ['--tenant', 'shop', '--user', 'C1001'] });
 */
export async function runMcpServe({
  args,
  environment = process.env,
  input = process.stdin,
  output = process.stdout,
  log = (line) => process.stderr.write(`${line}\n`),
}: {
  args: readonly string[];
  environment?: Readonly<Record<string, string | undefined>>;
  input?: Readable;
  output?: Writable;
  /** Lines for the operator; stdout belongs to the protocol. */
  log?: (line: string) => void;
}): Promise<number> {
  const flags = parseMcpServeFlags(args, environment);
  // As arbiter serve: the data directory is made on first use (the tools module may keep its database there).
  mkdirSync(flags.dataDir, { recursive: true });
  const domain: ToolsModule =
    flags.toolsModule === undefined
      ? await (await loadDefaultDomain()).open({ dataDir: flags.dataDir })
      : await loadToolsModule({ path: flags.toolsModule, context: { dataDir: flags.dataDir } });
  const store = openSqliteStore({ path: join(flags.dataDir, 'arbiter.db'), busyTimeoutMs: 25 });
  // Writes wait out another process's lock (arbiter serve or arbiter approve on the same data directory).
  const busyWaitMs = 60_000;
  const audit = new SqliteAuditLog({ database: store.database, busyWaitMs });
  try {
    const tools = new ToolRegistry();
    for (const tool of domain.tools) tools.register(tool);
    const onError = (error: unknown) =>
      log(`arbiter mcp serve: ${error instanceof Error ? error.message : String(error)}`);
    const pipeline: McpToolPipeline = {
      tools,
      gate: createTierGate({ rules: domain.gateRules, tools }),
      approvals: new SqliteApprovalBroker({ database: store.database, busyWaitMs }),
      idempotency: new SqliteIdempotencyStore({ database: store.database, busyWaitMs }),
      audit,
      runs: new ServerRuns({ database: store.database, onError }),
      onError,
    };
    const ended = Promise.race([once(input, 'end'), once(input, 'close')]);
    // Calls still running when the client hangs up finish (and are audited) before the store closes.
    const inFlight = new Set<Promise<unknown>>();
    const track = (call: Promise<unknown>) => {
      inFlight.add(call);
      const forget = () => inFlight.delete(call);
      call.then(forget, forget);
    };
    const handle = serveStdio(
      ({ era }) =>
        createArbiterMcpServer({
          pipeline,
          principal: flags.principal,
          locale: flags.locale,
          era,
          approveInClient: flags.approveInClient,
          track,
        }),
      { transport: new StdioServerTransport(input, output), onerror: onError },
    );
    log(
      `arbiter mcp serve: ${tools.names.length} tools for tenant ${flags.principal.tenantId}, user ${flags.principal.userId}; ` +
        `store ${join(flags.dataDir, 'arbiter.db')}`,
    );
    await ended;
    await Promise.allSettled([...inFlight]);
    await handle.close();
    return 0;
  } finally {
    // Read calls' audit rows are written in batches: none is lost at the end.
    await audit.flush();
    store.close();
    await domain.close();
  }
}
