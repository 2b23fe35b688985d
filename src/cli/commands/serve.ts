import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readA2aConfig } from '../../a2a/client/a2a-agent-config.js';
import { type A2aMounts, openA2aMounts } from '../../a2a/client/mount-a2a-agents.js';
import type { Locale } from '../../core/locale.js';
import { UsageError } from '../../errors/usage-error.js';
import { describeMcpChanges } from '../../mcp/client/describe-mcp-changes.js';
import { readMcpConfig } from '../../mcp/client/mcp-server-config.js';
import { type McpMounts, openMcpMounts } from '../../mcp/client/mount-mcp-servers.js';
import { createProviderModel, readConfiguredProvider } from '../../models/ai-sdk/create-provider-model.js';
import { checkModelEndpoint } from '../../models/check-model-endpoint.js';
import { createConfiguredModel, readConfiguredEndpoint } from '../../models/create-configured-model.js';
import { LocalModel } from '../../models/local/local-model.js';
import { localModelFile } from '../../models/local/local-model-flag.js';
import type { Model } from '../../models/model.js';
import { ScriptedModel } from '../../models/scripted-model.js';
import { type AuthConfig, demoTokens, readAuthConfig } from '../../server/auth-config.js';
import type { AssembledServer } from '../../server/create-server.js';
import { loadDefaultDomain } from '../../server/default-domain.js';
import { loadToolsModule, type ToolsModule } from '../../server/load-tools-module.js';
import type { PrincipalLimitOptions } from '../../server/principal-limits.js';
import { type RunningServer, type StartServerOptions, startServer } from '../../server/start-server.js';
import { withStreamingDelay } from '../../server/with-streaming-delay.js';
import { readScriptFile } from '../read-script-file.js';
import { checkStoreReachable } from './open-data-store.js';
import { checkStoreUrl, shownStoreUrl, storeLocation } from './store-location.js';

export { serveUsage } from '../command-usage.js';

/** `arbiter serve`'s flags, checked. */
export interface ServeFlags {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** A PostgreSQL connection string (`--store`); undefined: SQLite in `dataDir`, unless `ARBITER_STORE_URL` names one. */
  readonly storeUrl: string | undefined;
  /** With a PostgreSQL store: this node's name, and how long a run's lease lasts. */
  readonly nodeId: string | undefined;
  readonly leaseMs: number | undefined;
  readonly authFile: string | undefined;
  readonly toolsModule: string | undefined;
  /** `--mcp FILE`: MCP servers whose tools are mounted next to the others. */
  readonly mcpFile: string | undefined;
  /**
   * `configured`: the AI SDK provider `ARBITER_PROVIDER` names, else the same as `openai`; `local:FILE`: a GGUF
   * model file on this machine (`LocalModel`, the optional node-llama-cpp runtime).
   */
  readonly model: 'scripted' | 'openai' | 'configured' | `local:${string}`;
  /** Start with `--model openai` (or `configured` on an endpoint) without checking the endpoint first. */
  readonly skipModelCheck: boolean;
  readonly scriptFile: string | undefined;
  readonly allowSelfApproval: boolean;
  /** `--memory-tools`: mount `save_fact` and `recall_facts`. */
  readonly memoryTools: boolean;
  readonly principalLimits: PrincipalLimitOptions;
}

/**
 * Reads `arbiter serve`'s flags; a value that cannot be used is a `UsageError`.
 *
 * @example
 * parseServeFlags(['--port', '9000', '--model', 'openai']).port; // 9000
 */
export function parseServeFlags(args: readonly string[]): ServeFlags {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string', default: '8787' },
      host: { type: 'string', default: '127.0.0.1' },
      'data-dir': { type: 'string', default: '.arbiter' },
      store: { type: 'string' },
      'node-id': { type: 'string' },
      'lease-ms': { type: 'string' },
      auth: { type: 'string' },
      tools: { type: 'string' },
      mcp: { type: 'string' },
      model: { type: 'string', default: 'scripted' },
      script: { type: 'string' },
      'skip-model-check': { type: 'boolean', default: false },
      'allow-self-approval': { type: 'boolean', default: false },
      'memory-tools': { type: 'boolean', default: false },
      'max-streams': { type: 'string' },
      'sessions-per-minute': { type: 'string' },
      'messages-per-minute': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError({ message: `--port must be an integer from 0 to 65535, got "${values.port}"` });
  }
  const localFile = localModelFile(values.model);
  if (
    values.model !== 'scripted' &&
    values.model !== 'openai' &&
    values.model !== 'configured' &&
    localFile === undefined
  ) {
    throw new UsageError({
      message: `--model must be scripted, openai, configured or local:FILE (a GGUF model file), got "${values.model}"`,
    });
  }
  if (values.script !== undefined && values.model !== 'scripted') {
    throw new UsageError({ message: '--script only applies to --model scripted' });
  }
  if (values['skip-model-check'] && (values.model === 'scripted' || localFile !== undefined)) {
    throw new UsageError({ message: '--skip-model-check only applies to --model openai' });
  }
  const limit = (flag: 'max-streams' | 'sessions-per-minute' | 'messages-per-minute'): number | undefined => {
    const value = values[flag];
    if (value === undefined) return undefined;
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1) {
      throw new UsageError({ message: `--${flag} must be a whole number from 1, got "${value}"` });
    }
    return number;
  };
  const leaseMs = values['lease-ms'] === undefined ? undefined : Number(values['lease-ms']);
  if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs >= 100)) {
    throw new UsageError({
      message: `--lease-ms must be a whole number of milliseconds from 100, got "${values['lease-ms']}"`,
    });
  }
  const maxStreams = limit('max-streams');
  const sessionsPerMinute = limit('sessions-per-minute');
  const messagesPerMinute = limit('messages-per-minute');
  return {
    port,
    host: values.host,
    dataDir: values['data-dir'],
    storeUrl: values.store === undefined ? undefined : checkStoreUrl(values.store, '--store'),
    nodeId: values['node-id'],
    leaseMs,
    authFile: values.auth,
    toolsModule: values.tools,
    mcpFile: values.mcp,
    model: localFile === undefined ? (values.model as 'scripted' | 'openai' | 'configured') : `local:${localFile}`,
    skipModelCheck: values['skip-model-check'],
    scriptFile: values.script,
    allowSelfApproval: values['allow-self-approval'],
    memoryTools: values['memory-tools'],
    principalLimits: {
      ...(maxStreams === undefined ? {} : { maxStreams }),
      ...(sessionsPerMinute === undefined ? {} : { sessionsPerMinute }),
      ...(messagesPerMinute === undefined ? {} : { messagesPerMinute }),
    },
  };
}

/**
 * Builds the server's options from the flags and the environment: reads
 * the auth file, loads the tools module (its tools and gate rules), picks
 * the model (the offline scripted shop chat, paced for a person to watch,
 * `createConfiguredModel`: the endpoint the environment configures,
 * behind the resilient model's retries and fallback, or with `local:FILE` a
 * `LocalModel` on that GGUF file, loaded first), takes the
 * metrics token from `ARBITER_METRICS_TOKEN`. `close` releases what the
 * tools module opened.
 *
 * @example
 * const { options, close } = await serveOptions(parseServeFlags(['--model', 'openai']));
 */
export async function serveOptions(
  flags: ServeFlags,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ options: StartServerOptions; close: () => Promise<void>; notices: readonly string[] }> {
  // A local model is loaded first, before anything is opened: a missing or unsupported file is said at once.
  const localFile = localModelFile(flags.model);
  const local = localFile === undefined ? undefined : new LocalModel({ file: localFile });
  await local?.load();
  const auth: AuthConfig | undefined =
    flags.authFile === undefined ? undefined : await readAuthConfig({ file: flags.authFile });
  const mcpServers =
    flags.mcpFile === undefined ? undefined : await readMcpConfig({ file: flags.mcpFile, environment });
  // The same file's entries with an `agentCard`: A2A agents, mounted next to the MCP servers.
  const a2aAgents = flags.mcpFile === undefined ? undefined : await readA2aConfig({ file: flags.mcpFile, environment });
  let domain: ToolsModule | undefined =
    flags.toolsModule === undefined
      ? undefined
      : await loadToolsModule({ path: flags.toolsModule, context: { dataDir: flags.dataDir } });
  let mcp: McpMounts | undefined;
  let a2a: A2aMounts | undefined;
  if (mcpServers !== undefined) {
    // MCP tools go next to the domain's: without --tools, the shop's, opened here as startServer would.
    if (domain === undefined) {
      if (flags.dataDir !== ':memory:') mkdirSync(flags.dataDir, { recursive: true });
      domain = await (await loadDefaultDomain()).open({ dataDir: flags.dataDir });
    }
    try {
      mcp = await openMcpMounts({
        servers: mcpServers,
        reserved: domain.tools.map((tool) => tool.name),
        onChange: (server, changes) => {
          for (const line of describeMcpChanges({ server, changes })) process.stderr.write(`arbiter serve: ${line}\n`);
        },
      });
      a2a = await openA2aMounts({
        agents: a2aAgents ?? [],
        reserved: [...domain.tools.map((tool) => tool.name), ...mcp.definitions.map((tool) => tool.name)],
      });
    } catch (error) {
      await mcp?.close();
      await domain.close();
      throw error;
    }
  }
  // Tools of one's own (--tools); the shop's, opened here for --mcp, still count as the default domain.
  const tools = flags.toolsModule === undefined ? undefined : domain?.tools;
  const metricsToken = environment['ARBITER_METRICS_TOKEN'];
  let model: Model | ((locale: Locale) => Model) | undefined;
  if (local !== undefined) {
    model = local;
  } else if (flags.model === 'configured' && readConfiguredProvider(environment) !== undefined) {
    model = await createProviderModel({ env: environment });
  } else if (flags.model !== 'scripted') {
    model = createConfiguredModel({ env: environment });
  } else if (flags.scriptFile !== undefined) {
    const script = await readScriptFile(flags.scriptFile);
    const latencyMs = scriptedLatencyMs(environment);
    model = withStreamingDelay(
      new ScriptedModel({ script }),
      latencyMs === undefined
        ? { firstTokenMs: 400, deltaMs: 15 }
        : { firstTokenMs: latencyMs, deltaMs: 0, maxFragmentLength: Number.MAX_SAFE_INTEGER },
    );
  }
  // A real model serving the default domain (the shop) is told about its job there.
  const systemPrompts =
    flags.model !== 'scripted' && tools === undefined ? (await loadDefaultDomain()).systemPrompts : undefined;
  const options: StartServerOptions = {
    port: flags.port,
    host: flags.host,
    dataDir: flags.dataDir,
    allowSelfApproval: flags.allowSelfApproval,
    memoryTools: flags.memoryTools,
    principalLimits: flags.principalLimits,
    ...(auth === undefined ? {} : { auth }),
    ...(domain === undefined ? {} : { tools: domain.tools, gateRules: domain.gateRules }),
    ...(mcp === undefined
      ? {}
      : {
          mountTools: (registry) => {
            mcp.attach(registry);
            a2a?.attach(registry);
          },
        }),
    ...(model === undefined ? {} : { model }),
    ...(metricsToken === undefined || metricsToken === '' ? {} : { metricsToken }),
    ...(systemPrompts === undefined ? {} : { systemPrompt: (locale: Locale) => systemPrompts[locale] }),
  };
  const notices = (mcp?.servers ?? []).flatMap((server) => [
    `arbiter serve: MCP server "${server.server.name}": ${server.tools.length} tools mounted (${server.tools.map((tool) => tool.name).join(', ')})`,
    ...server.refusals.map((refusal) => `arbiter serve: warning: not mounted: ${refusal.message}`),
  ]);
  // A server that could not be mounted costs only its own tools: said here, everything else is served.
  for (const failure of mcp?.failures ?? []) notices.push(`arbiter serve: warning: not mounted: ${failure.message}`);
  for (const agent of a2a?.agents ?? []) {
    notices.push(
      `arbiter serve: A2A agent "${agent.agent.name}": ${agent.skills.length} tools mounted (${agent.skills.map((skill) => skill.name).join(', ')})`,
    );
  }
  for (const failure of a2a?.failures ?? []) notices.push(`arbiter serve: warning: not mounted: ${failure.message}`);
  return {
    options,
    notices,
    close: async () => {
      await mcp?.close();
      await domain?.close();
    },
  };
}

/**
 * `arbiter serve`: starts the server, says where it listens (and, without
 * `--auth`, the demo tokens), and resolves with exit code 0 once SIGINT or
 * SIGTERM has closed it (runs still going get a grace period, then stop).
 *
 * With `--model openai` the endpoint is checked first (`checkModelEndpoint`,
 * unless `--skip-model-check`): a configuration that cannot work (host
 * unreachable, key refused, model not listed) rejects with the check's
 * `ModelError` before anything listens, which the CLI prints on one line
 * naming URL and model, never the key, and exits 2; a model list it cannot
 * read is a warning, and the server starts.
 *
 * @example
 * // in src/cli/main.ts
 * case 'serve': return runServe({ args: rest, write: (line) => process.stdout.write(`${line}\n`) });
 */
export async function runServe({
  args,
  write,
  onStarted,
  environment = process.env,
}: {
  args: readonly string[];
  write: (line: string) => void;
  /** Called with the running server (tests stop it through this). */
  onStarted?: (running: RunningServer<AssembledServer>) => void;
  /** Where `ARBITER_*` are read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
}): Promise<number> {
  const flags = parseServeFlags(args);
  // Signals are ours from the start: one during start-up stops the server as soon as it is up.
  let stopRequested = false;
  let onSignal = () => {
    stopRequested = true;
  };
  const signalled = () => onSignal();
  process.on('SIGINT', signalled);
  process.on('SIGTERM', signalled);
  const forgetSignals = () => {
    process.off('SIGINT', signalled);
    process.off('SIGTERM', signalled);
  };
  let serveSetup: Awaited<ReturnType<typeof serveOptions>>;
  try {
    serveSetup = await serveOptions(flags, environment);
  } catch (error) {
    forgetSignals();
    throw error;
  }
  const { options, close, notices } = serveSetup;
  for (const notice of notices) write(notice);
  if (flags.model !== 'scripted' && localModelFile(flags.model) === undefined) {
    try {
      write(
        await checkConfiguredModel({
          environment,
          skip: flags.skipModelCheck,
          configured: flags.model === 'configured',
        }),
      );
    } catch (error) {
      forgetSignals();
      await close();
      throw error;
    }
  }
  const location = storeLocation({ values: { 'data-dir': flags.dataDir, store: flags.storeUrl }, environment });
  const storeUrl = location.dialect === 'postgres' ? location.url : undefined;
  const nodeId = flags.nodeId ?? randomUUID();
  let running: RunningServer<AssembledServer>;
  try {
    if (storeUrl === undefined) running = await startServer(options);
    else {
      await checkStoreReachable(location);
      // Loaded only for PostgreSQL: a SQLite server never loads pg.
      const { startPostgresServer } = await import('../../server/postgres-server.js');
      running = await startPostgresServer({
        ...options,
        connectionString: storeUrl,
        nodeId,
        ...(flags.leaseMs === undefined ? {} : { leaseMs: flags.leaseMs }),
      });
    }
  } catch (error) {
    forgetSignals();
    await close();
    throw error;
  }
  const where = storeUrl === undefined ? `data in ${flags.dataDir}` : `store ${shownStoreUrl(storeUrl)}`;
  write(`arbiter serve: listening on ${running.url} (${where}, model ${flags.model})`);
  // Which node of a cluster this is, as its log lines and the runs it holds name it.
  if (storeUrl !== undefined) write(`arbiter serve: node ${nodeId}`);
  if (flags.memoryTools) write('arbiter serve: memory tools mounted (save_fact, recall_facts)');
  if (flags.authFile === undefined) {
    write(`demo tokens (this machine only): customer ${demoTokens.customer}, approver ${demoTokens.approver}`);
  }
  write(`open ${running.url}/ for the chat page, ${running.url}/desk for the approver's desk; Ctrl-C stops the server`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      forgetSignals();
      write('arbiter serve: stopping…');
      running
        .close()
        .then(close)
        .then(
          () => resolve(0),
          () => resolve(1),
        );
    };
    onSignal = stop;
    onStarted?.({ ...running, close: async () => stop() });
    if (stopRequested) stop();
  });
}

/** The start-up line about the configured endpoint; rejects with the check's error when it cannot work. */
async function checkConfiguredModel({
  environment,
  skip,
  configured,
}: {
  environment: Readonly<Record<string, string | undefined>>;
  skip: boolean;
  /** `--model configured`: an AI SDK provider when `ARBITER_PROVIDER` names one. */
  configured: boolean;
}): Promise<string> {
  const provider = configured ? readConfiguredProvider(environment) : undefined;
  if (provider !== undefined) {
    const models = [provider.model, ...(provider.fallbackModel === undefined ? [] : [provider.fallbackModel])];
    return `arbiter serve: model ${models.join(', ')} via ${provider.packageName} (an AI SDK provider, not checked at start); failed calls retried with backoff${provider.fallbackModel === undefined ? '' : `, then ${provider.fallbackModel}`}`;
  }
  const { baseUrl, apiKey, model, fallbackModel } = readConfiguredEndpoint(environment);
  const models = fallbackModel === undefined ? [model] : [model, fallbackModel];
  const retries = `failed calls retried with backoff${fallbackModel === undefined ? '' : `, then ${fallbackModel}`}`;
  if (skip)
    return `arbiter serve: model ${models.join(', ')} at ${baseUrl} not checked (--skip-model-check); ${retries}`;
  const check = await checkModelEndpoint({ baseUrl, apiKey, models });
  if (check.status === 'failed') throw check.error;
  if (check.status === 'unverified') return `arbiter serve: warning: ${check.message}; ${retries}`;
  return `arbiter serve: ${check.message}; ${retries}`;
}

/** `ARBITER_SCRIPTED_LATENCY_MS`, checked; undefined when unset or empty. */
function scriptedLatencyMs(environment: Readonly<Record<string, string | undefined>>): number | undefined {
  const value = environment['ARBITER_SCRIPTED_LATENCY_MS'];
  if (value === undefined || value === '') return undefined;
  const latencyMs = Number(value);
  if (!Number.isInteger(latencyMs) || latencyMs < 0) {
    throw new UsageError({
      message: `ARBITER_SCRIPTED_LATENCY_MS must be a whole number of ms from 0, got "${value}"`,
    });
  }
  return latencyMs;
}
