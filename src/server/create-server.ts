import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Awaitable } from '../core/awaitable.js';
import type { Locale } from '../core/locale.js';
import type { MemoryStore } from '../core/memory-store.js';
import { HttpError } from '../errors/http-error.js';
import { ServerConfigError } from '../errors/server-config-error.js';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import { SessionNotFoundError } from '../errors/session-not-found-error.js';
import { EventBus } from '../events/event-bus.js';
import type { EventLog, SynchronousEventLog } from '../events/event-log.js';
import type { AuditLog } from '../gate/audit-log.js';
import type { IdempotencyStore } from '../gate/idempotency-store.js';
import { createTierGate, type GateRule } from '../gate/tier-gate.js';
import { toolDefinitionChangeEntry } from '../gate/tool-definition-change.js';
import type { ToolGate } from '../gate/tool-gate.js';
import type { RunLimits } from '../loop/run-agent.js';
import { createMcpHttpRoute } from '../mcp/server/mcp-http-route.js';
import { conversationFromSessions, createMemoryTools } from '../memory/create-memory-tools.js';
import type { Model } from '../models/model.js';
import { computeMetrics } from '../observe/compute-metrics.js';
import { metricsToPrometheus } from '../observe/prometheus-metrics.js';
import { createRunCollector } from '../observe/run-collector.js';
import type { EndRunRequest, SessionStore } from '../store/session-store.js';
import { SqliteApprovalBroker } from '../store/sqlite/sqlite-approval-broker.js';
import { SqliteAuditLog } from '../store/sqlite/sqlite-audit-log.js';
import { SqliteEventLog } from '../store/sqlite/sqlite-event-log.js';
import { SqliteIdempotencyStore } from '../store/sqlite/sqlite-idempotency-store.js';
import { SqliteMemoryStore } from '../store/sqlite/sqlite-memory-store.js';
import { ServerRuns } from '../store/sqlite/sqlite-server-runs.js';
import { SqliteSessionStore } from '../store/sqlite/sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import type { ToolDefinition } from '../tools/tool-types.js';
import { isStoreBusy } from '../util/retry-while-busy.js';
import { approvalRoutes } from './approval-routes.js';
import { type AuthConfig, createAuthenticator, demoAuthConfig, demoTokens } from './auth-config.js';
import { deskRoutes } from './desk-routes.js';
import { runLifecycleEntry } from './log-run-lifecycle.js';
import { isLoopbackHostHeader } from './loopback-host.js';
import { memoryRoutes } from './memory-routes.js';
import { metricsRoute } from './metrics-route.js';
import { loadPageAssets } from './page-assets.js';
import { type PrincipalLimitOptions, PrincipalLimits } from './principal-limits.js';
import { a2aRoutes, agentCardPath, agentCardRoute } from './protocols/a2a/index.js';
import { agUiRoutes } from './protocols/ag-ui/index.js';
import { chatRoutes } from './protocols/ai-sdk-ui/chat-routes.js';
import { RunManager } from './run-manager.js';
import { runRoutes } from './run-routes.js';
import type { SessionEndOffer } from './run-session-ends.js';
import { approverRole, notFound, type ServerDependencies, type ServerEnv } from './server-env.js';
import { jsonLineLogger, type ServerLogger } from './server-log.js';
import { ServerMetrics } from './server-metrics.js';
import type { ServerApprovals, ServerLimits, ServerRunRecords } from './server-storage.js';
import { sessionRoutes } from './session-routes.js';
import type { StartRunRequest } from './start-run-request.js';
import type { FollowRun } from './stream-run-events.js';
import type { StreamingDelay } from './with-streaming-delay.js';

export interface CreateServerOptions {
  /** Where arbiter's store (and the shop's database) live; `:memory:` keeps nothing. Default `.arbiter`. */
  readonly dataDir?: string;
  /**
   * Bearer tokens and their principals (each `token` at least 32 characters). Default: the demo
   * (`demoAuthConfig`), whose public tokens the page may fetch; the server then answers loopback `Host`s only.
   */
  readonly auth?: AuthConfig;
  /**
   * The application's tools. Required here; `startServer` (and `arbiter serve`) default to the shop
   * example's, on a shop database in `dataDir`.
   */
  readonly tools?: readonly ToolDefinition[];
  /**
   * Adds tools that come and go while the server runs, next to `tools`: called once with the server's
   * registry, which the caller may keep changing (MCP servers' tools, `McpMounts.attach`).
   */
  readonly mountTools?: (registry: ToolRegistry) => void;
  /**
   * Configured gate rules over `tools` (e.g. a hard cap that denies outright), applied by the default
   * gate. Default: none (`startServer` with the shop's default tools: the shop's, `shopGateRules`).
   * Not together with `gate`, which brings its own rules.
   */
  readonly gateRules?: readonly GateRule[];
  /** The model, or one per language. Required here; `startServer` defaults to the offline scripted shop chat. */
  readonly model?: Model | ((locale: Locale) => Model);
  /** Pace of the default scripted model; `false` for full speed. Default 400 ms to think, 15 ms a fragment. */
  readonly streamingDelay?: StreamingDelay | false;
  /** Default: `createTierGate` with `gateRules` (side-effect tiers, configured rules, each tool's own approval rule). */
  readonly gate?: ToolGate;
  /** Let an approver decide approvals requested in his own sessions (four-eyes rule off). Default false. */
  readonly allowSelfApproval?: boolean;
  /**
   * Long-term memory: mounts `save_fact` and `recall_facts` beside `tools` (each user's own facts,
   * bound from the principal). `GET`/`DELETE /v1/memory` (a person's own facts) are served either way.
   * Default false.
   */
  readonly memoryTools?: boolean;
  /**
   * The scrape token for `GET /metrics` across all tenants (at least 32 characters). Without it only
   * bearer tokens with the `metrics` role read `/metrics`, each its own tenant's series.
   */
  readonly metricsToken?: string;
  /** Per principal: SSE streams at once (10), sessions (20) and messages (30) per minute; 429 beyond. */
  readonly principalLimits?: PrincipalLimitOptions;
  /** A system message for each new session, by language. */
  readonly systemPrompt?: (locale: Locale) => string | undefined;
  readonly limits?: RunLimits;
  /** Default: `SqliteIdempotencyStore` in the store. */
  readonly idempotency?: IdempotencyStore;
  /** Default: `SqliteAuditLog` in the store. */
  readonly audit?: AuditLog;
  /** Largest request body. Default 32 KiB. */
  readonly bodyLimitBytes?: number;
  /** SSE heartbeat interval. Default 15 s. */
  readonly heartbeatMs?: number;
  /** Text fragments within this window go out as one event. Default 30 ms. */
  readonly deltaWindowMs?: number;
  /** Events a slow SSE client may have waiting before it is disconnected (and replays). Default 2048. */
  readonly maxQueuedEvents?: number;
  /** How long `close` waits for running runs before aborting them. Default 10 s. */
  readonly shutdownGraceMs?: number;
  /** Resume runs a previous process left in the middle. Default true. */
  readonly resumeInterrupted?: boolean;
  /** Where failures nobody else hears of go. Default `console.error`. */
  readonly onError?: (error: unknown) => void;
  /** Structured log lines (a failed model call, a session recovered at start-up). Default: JSON lines on stderr. */
  readonly logger?: ServerLogger;
  /** How long one database statement waits, blocking the process, for another connection's lock. Default 25 ms. */
  readonly storeBusyTimeoutMs?: number;
  /** How often an approver's open inbox (the desk) reads the store for approvals asked or decided elsewhere. Default 500 ms. */
  readonly inboxPollMs?: number;
  /** How long a request's write keeps retrying (asynchronously) while the database is locked; then 503. Default 2 s. */
  readonly storeBusyWaitMs?: number;
}

/** A server ready to listen: its hono app and the stores behind it. */
export interface ArbiterServer {
  readonly app: Hono<ServerEnv>;
  readonly store: SqliteStore;
  readonly sessions: SessionStore;
  readonly runs: ServerRuns;
  readonly log: SynchronousEventLog;
  readonly approvals: SqliteApprovalBroker;
  readonly manager: RunManager;
  readonly metrics: ServerMetrics;
  /** Resolves when no run is executing. */
  idle(): Promise<void>;
  /** Waits for running runs (up to `shutdownGraceMs`, then aborts them), then closes the databases. */
  close(): Promise<void>;
}

/**
 * arbiter over HTTP: sessions, runs started in the background, their
 * events as SSE with replay, approvals, health and metrics, and the chat
 * page at `/`, for your `tools` and `model` (`startServer` defaults to
 * the shop example's); bring your own `gate` and `auth` too.
 *
 * Routes (all under `/v1` need `Authorization: Bearer TOKEN`):
 * - `POST /v1/sessions` → 201 `{ id }`
 * - `GET /v1/sessions/:id` → messages, status, runs, pending approvals
 * - `POST /v1/sessions/:id/messages` `{ content, locale? }` → 202 `{ runId }`; 409 `{ activeRunId }` when a run is active
 * - `GET /v1/runs/:id`, `GET /v1/runs/:id/events` (SSE, `Last-Event-ID`)
 * - `POST /v1/approvals/:id` `{ decision, reason? }` → 202 (approver role; 403 `self_approval` in his own session)
 * - `POST /v1/chat`, `GET /v1/chat/:id/stream`: the AI SDK's UI message stream, for `useChat` (`chatRoutes`)
 * - `POST /v1/ag-ui` an AG-UI `RunAgentInput` → the run's AG-UI events (SSE; see `agUiRoutes`)
 * - `/v1/desk/…`: the approver's desk (inbox with live updates, decisions, run timelines, audit; see `deskRoutes`), its page at `/desk`
 * - `GET /v1/me`, `GET /healthz`, `GET /metrics` (metrics token or role), `GET /demo.json`, `GET /`
 * - `/mcp`: the tools as an MCP server (Streamable HTTP) for the bearer's principal, every call through the gate
 *
 * Per principal, streams at once and sessions and messages per minute are
 * limited (429 with `Retry-After`). Without `auth` (the demo, whose tokens
 * are public) every request whose `Host` is not `localhost`, `127.0.0.1` or
 * `[::1]` is refused with 403 `host_not_allowed`, so a page on another
 * origin cannot rebind its name to this machine and fetch `/demo.json`.
 *
 * @example
 * const server = createServer({ dataDir: '.arbiter', tools: createTools(), model: createConfiguredModel() });
 * serve({ fetch: server.app.fetch, port: 8787 });
 */
export function createServer(options: CreateServerOptions = {}): ArbiterServer {
  const dataDir = options.dataDir ?? '.arbiter';
  const inMemory = dataDir === ':memory:';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const onError = options.onError ?? ((error: unknown) => console.error('arbiter server:', error));
  const store = openSqliteStore({
    path: inMemory ? ':memory:' : join(dataDir, 'arbiter.db'),
    busyTimeoutMs: options.storeBusyTimeoutMs ?? 25,
  });
  // A run's gate writes (approval requests, idempotency claims, audit rows) wait out a lock as its journal does.
  const runBusyWaitMs = 60_000;
  const runs = new ServerRuns({ database: store.database, onError });
  const log = new SqliteEventLog({ database: store.database });
  const approvals = new SqliteApprovalBroker({ database: store.database, busyWaitMs: runBusyWaitMs });
  const storage: ServerStorage = {
    sessions: new SqliteSessionStore({ database: store.database, busyWaitMs: options.storeBusyWaitMs ?? 2000 }),
    runs,
    log,
    approvals,
    audit: options.audit ?? new SqliteAuditLog({ database: store.database, busyWaitMs: runBusyWaitMs }),
    idempotency:
      options.idempotency ?? new SqliteIdempotencyStore({ database: store.database, busyWaitMs: runBusyWaitMs }),
    tenantOf: (runId) => runs.find(runId)?.tenantId,
    memory: new SqliteMemoryStore({ database: store.database }),
    resumeInterrupted: options.resumeInterrupted ?? true,
    healthCheck: () => {
      store.database.prepare('SELECT 1').get();
    },
    close: async () => store.close(),
  };
  const server = assembleServer(options, storage);
  return { ...server, store, runs, log, approvals };
}

/**
 * What a server keeps, on one backend: the stores its routes and runs use,
 * and how the backend joins in (following runs, resuming after approval,
 * recovering interrupted runs). `createServer` builds SQLite's; the
 * PostgreSQL server (`createPostgresServer`) builds one for many nodes.
 */
export interface ServerStorage {
  readonly sessions: SessionStore;
  readonly runs: ServerRunRecords;
  readonly log: EventLog;
  readonly approvals: ServerApprovals;
  readonly idempotency: IdempotencyStore;
  readonly audit: AuditLog;
  /** Default: `PrincipalLimits`, counted in this process. */
  readonly limits?: ServerLimits;
  /** A run's tenant, for the metrics, when this process knows the run. */
  readonly tenantOf: (runId: string) => string | undefined;
  /** Long-term memory (`/v1/memory`, and the memory tools with `memoryTools`). */
  readonly memory?: MemoryStore;
  /** How SSE connections follow runs; default: the manager's own. */
  readonly followRun?: (manager: RunManager) => FollowRun;
  /**
   * How long a run's published events wait for more before they are
   * written (a run's end never waits); default 0, every turn of the event loop.
   */
  readonly eventGatherMs?: number;
  /**
   * Where a run's end on its session may be written with the run's
   * terminal event (`RunSessionEnds.offer`); default: on its own.
   */
  readonly offerSessionEnd?: (request: EndRunRequest) => SessionEndOffer | undefined;
  /** What a decided approval does to its run; default: the manager resumes it here. */
  readonly resumeRun?: (manager: RunManager) => (runId: string) => Awaitable<void>;
  /** Where new runs execute when not on this node (a durable engine); default: the manager runs them here. */
  readonly startRun?: (request: StartRunRequest) => Promise<{ runId: string }>;
  /** Resume at start-up what a previous process left running (`RunManager.resumeInterrupted`). */
  readonly resumeInterrupted: boolean;
  /** Throws when the database cannot answer (`GET /healthz`). */
  healthCheck(): Awaitable<void>;
  /** Prometheus lines about the storage itself (the PostgreSQL transactions by kind), for `GET /metrics`. */
  metrics?(): readonly string[];
  /** Called with the manager once the server is assembled (the PostgreSQL server starts claiming runs). */
  start?(manager: RunManager): void;
  /** Called as the server begins to close, before its runs are waited for: take on no more work. */
  stopping?(): void;
  /**
   * Where a run can continue on another node: the server hands its runs over
   * as it closes (each stops at a committed step, then this releases their
   * leases) instead of aborting them. Default: runs are waited for, then aborted.
   */
  handOver?(runIds: readonly string[]): Promise<void>;
  /** Called after the manager has closed: stops what `start` began, closes the databases. */
  close(): Promise<void>;
}

/** A server on any `ServerStorage`, before its backend's own members are added. */
export type AssembledServer = Omit<ArbiterServer, 'store' | 'runs' | 'log' | 'approvals'>;

/**
 * The HTTP server over `storage`: gate, run manager, routes. The shared
 * body of `createServer` (SQLite) and `createPostgresServer`.
 *
 * @example
 * const server = assembleServer(options, await openPostgresServerStorage({ connectionString }));
 */
export function assembleServer(options: CreateServerOptions, storage: ServerStorage): AssembledServer {
  const onError = options.onError ?? ((error: unknown) => console.error('arbiter server:', error));
  const logger = options.logger ?? jsonLineLogger();
  const { sessions, runs, log, approvals, audit } = storage;
  if (options.gate !== undefined && options.gateRules !== undefined) {
    throw new ServerConfigError({
      setting: 'gateRules',
      message: 'give gateRules or a gate of your own, not both: the gate would not apply the rules',
    });
  }
  const authenticate =
    options.auth === undefined
      ? createAuthenticator(demoAuthConfig, { demo: true })
      : createAuthenticator(options.auth);
  const registry = new ToolRegistry();
  // A third party's tool redefined after it was mounted: logged and audited with both fingerprints.
  registry.onDefinitionChange((change) => {
    logger({ level: 'warn', event: 'tool_definition_changed', ...change });
    void (async () => audit.append(toolDefinitionChangeEntry({ change, at: Date.now() })))().catch(onError);
  });
  for (const tool of options.tools ?? []) registry.register(tool);
  options.mountTools?.(registry);
  if (options.memoryTools === true && storage.memory !== undefined) {
    const conversation = conversationFromSessions(sessions);
    for (const tool of createMemoryTools({ memory: storage.memory, conversation })) registry.register(tool);
  }
  const gate = options.gate ?? createTierGate({ rules: options.gateRules ?? [], tools: registry });

  const metrics = new ServerMetrics({ tools: registry, tenantOf: storage.tenantOf });
  const bus = new EventBus({ onListenerError: (error) => onError(error) });
  const recentRuns = createRunCollector({ bus, limit: 1000 });
  // Without a model the server is refused below, before any run could ask for one.
  const model =
    options.model ??
    ((): Model => {
      throw new ServerConfigError({ setting: 'model', message: 'createServer needs a model' });
    });
  const manager = new RunManager({
    bus,
    sessions,
    runs,
    log,
    approvals,
    tools: registry,
    model: typeof model === 'function' ? model : () => model,
    gate,
    idempotency: storage.idempotency,
    ...(storage.offerSessionEnd === undefined ? {} : { offerSessionEnd: storage.offerSessionEnd }),
    ...(storage.eventGatherMs === undefined ? {} : { eventGatherMs: storage.eventGatherMs }),
    audit,
    metrics,
    onError,
    logger,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.deltaWindowMs === undefined ? {} : { deltaWindowMs: options.deltaWindowMs }),
    ...(storage.startRun === undefined ? {} : { startElsewhere: storage.startRun }),
  });
  const dependencies: ServerDependencies = {
    sessions,
    runs,
    log,
    approvals,
    manager,
    metrics,
    audit,
    tools: registry,
    limits: storage.limits ?? new PrincipalLimits(options.principalLimits ?? {}),
    allowSelfApproval: options.allowSelfApproval ?? false,
    systemPrompt: options.systemPrompt,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxQueuedEvents: options.maxQueuedEvents ?? 2048,
    ...(storage.followRun === undefined ? {} : { followRun: storage.followRun(manager) }),
    ...(storage.resumeRun === undefined ? {} : { resumeRun: storage.resumeRun(manager) }),
  };

  const app = new Hono<ServerEnv>();
  const assets = loadPageAssets();
  const recentMetrics = () => [
    ...metricsToPrometheus(computeMetrics(recentRuns.runs()), { prefix: 'arbiter_recent' }),
    ...(storage.metrics?.() ?? []),
  ];
  const readMetrics = metricsRoute({ metrics, authenticate, metricsToken: options.metricsToken, extra: recentMetrics });
  // Checked after the other settings, so a bad token or auth file is still named first.
  // A server whose runs execute in an engine asks no model itself: the engine's workers do.
  const needsModel = options.model === undefined && storage.startRun === undefined;
  const missing = options.tools === undefined ? 'tools' : needsModel ? 'model' : undefined;
  if (missing !== undefined) {
    recentRuns.stop();
    void storage.close();
    throw new ServerConfigError({
      setting: missing,
      message: `createServer needs ${missing === 'tools' ? 'your tools' : 'a model'}; startServer (and arbiter serve) default to the shop example's`,
    });
  }

  if (options.auth === undefined) {
    app.use('*', async (c, next) => {
      const host = c.req.header('host');
      if (isLoopbackHostHeader(host)) return next();
      throw new HttpError({
        status: 403,
        reason: 'host_not_allowed',
        message:
          'the demo server answers only requests for localhost, 127.0.0.1 or [::1]; ' +
          `this one was for ${JSON.stringify((host ?? '').slice(0, 100))}. Serve others with an auth file (--auth FILE)`,
      });
    });
  }

  app.use('*', async (c, next) => {
    const startedAt = performance.now();
    await next();
    metrics.observeRequest({
      method: c.req.method,
      route: c.req.routePath,
      status: c.res.status,
      seconds: (performance.now() - startedAt) / 1000,
    });
  });
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: options.bodyLimitBytes ?? 32 * 1024,
      onError: (c) =>
        c.json(
          {
            error: {
              code: 'body_too_large',
              message: `request body is over ${options.bodyLimitBytes ?? 32 * 1024} bytes`,
            },
          },
          413,
        ),
    }),
  );
  app.use('/v1/*', async (c, next) => {
    const principal = authenticate(c.req.header('authorization'));
    if (principal === undefined) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new HttpError({ status: 401, reason: 'unauthenticated', message: 'a valid bearer token is required' });
    }
    c.set('principal', principal);
    await next();
  });

  app.get('/healthz', async (c) => {
    await storage.healthCheck();
    return c.json({ ok: true });
  });
  app.get('/metrics', readMetrics);
  app.get('/demo.json', (c) =>
    options.auth === undefined
      ? c.json({ customerToken: demoTokens.customer, approverToken: demoTokens.approver })
      : c.json({ error: { code: 'not_found', message: 'no demo tokens: the server uses its own auth file' } }, 404),
  );
  for (const [path, asset] of assets) {
    app.get(path, (c) =>
      c.body(asset.body, 200, { 'Content-Type': asset.contentType, 'Cache-Control': 'no-cache', ...asset.headers }),
    );
  }
  app.get('/v1/me', (c) => c.json(c.get('principal')));
  app.route('/v1/sessions', sessionRoutes(dependencies));
  app.route('/v1/runs', runRoutes(dependencies));
  app.route('/v1/approvals', approvalRoutes(dependencies));
  const desk = deskRoutes(dependencies, {
    onError,
    ...(options.inboxPollMs === undefined ? {} : { inboxPollMs: options.inboxPollMs }),
  });
  app.route('/v1/desk', desk);
  // Approvals asked or decided by this node's runs reach open inboxes at once; other nodes' at the next poll.
  const pokeDesk = bus.subscribe((event) => {
    if (event.type === 'approval:required' || event.type === 'approval:resolved') desk.feed.poke();
  });
  // Runs begun and ended, approvals asked and decided: one line each in the server's log.
  const logRuns = bus.subscribe((event) => {
    const entry = runLifecycleEntry(event);
    if (entry !== undefined) logger(entry);
  });
  app.route('/v1/chat', chatRoutes(dependencies));
  // arbiter's tools over MCP (Streamable HTTP), behind the same bearer auth, principal and limits.
  const mcp = createMcpHttpRoute({
    // On the server's bus: MCP calls count in /metrics like every other tool call.
    pipeline: { tools: registry, gate, approvals, idempotency: storage.idempotency, audit, runs, onError, events: bus },
    authenticate,
    limits: dependencies.limits,
    maxRequestBodySize: options.bodyLimitBytes ?? 32 * 1024,
    // Deciding one's own call in the MCP client is self-approval: only where four eyes are off, for approvers.
    approveInClient: (principal) => dependencies.allowSelfApproval && principal.roles.includes(approverRole),
  });
  app.all('/mcp', (c) => mcp.fetch(c.req.raw));
  if (storage.memory !== undefined) app.route('/v1/memory', memoryRoutes({ memory: storage.memory }));
  app.route('/v1/ag-ui', agUiRoutes(dependencies));
  // arbiter as an A2A agent: the public Agent Card, and JSON-RPC behind the bearer auth (see a2aRoutes).
  app.get(agentCardPath, agentCardRoute(dependencies.tools));
  const a2a = a2aRoutes(dependencies);
  // With and without a trailing slash: clients (the conformance kit among them) join the card's URL with '/'.
  app.route('/v1/a2a', a2a);
  app.route('/v1/a2a/', a2a);

  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}` } }, 404));
  app.onError((error, c) => {
    if (HttpError.isInstance(error)) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json(error.toBody(), error.status);
    }
    if (SessionConflictError.isInstance(error)) {
      return c.json({ error: { code: 'session_conflict', message: error.message } }, 409);
    }
    if (SessionNotFoundError.isInstance(error)) {
      return c.json(notFound('session', error.sessionId).toBody(), 404);
    }
    if (isStoreBusy(error)) {
      c.header('Retry-After', '1');
      const message = 'the database is locked by another process; nothing was written, try again shortly';
      return c.json({ error: { code: 'store_busy', message } }, 503);
    }
    onError(error);
    return c.json({ error: { code: 'internal_error', message: 'the server failed; the error was logged' } }, 500);
  });

  if (storage.resumeInterrupted) manager.resumeInterrupted();
  storage.start?.(manager);

  return {
    app,
    sessions,
    manager,
    metrics,
    idle: () => manager.idle(),
    close: async () => {
      storage.stopping?.();
      pokeDesk();
      desk.feed.close();
      await mcp.close();
      await manager.close({
        graceMs: options.shutdownGraceMs ?? 10_000,
        ...(storage.handOver === undefined ? {} : { handOver: storage.handOver.bind(storage) }),
      });
      // After the runs stopped: a run cut short by the shutdown still logs its end.
      logRuns();
      recentRuns.stop();
      await storage.close();
    },
  };
}
