import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Locale } from '../core/locale.js';
import { ServerConfigError } from '../errors/server-config-error.js';
import { type ArbiterServer, type AssembledServer, type CreateServerOptions, createServer } from './create-server.js';
import { loadDefaultDomain } from './default-domain.js';
import type { ToolsModule } from './load-tools-module.js';
import { isLoopbackAddress } from './loopback-host.js';

/** Connections the kernel may queue before the server accepts them. */
const listenBacklog = 4096;

export interface StartServerOptions extends CreateServerOptions {
  /** Default 8787; 0 picks a free port. */
  readonly port?: number;
  /** Default `127.0.0.1`: reachable from this machine only. Without `auth` (the demo) only a loopback address. */
  readonly host?: string;
}

/** A listening server: SQLite's (`ArbiterServer`) by default, or one assembled on another backend. */
export interface RunningServer<Server extends AssembledServer = ArbiterServer> {
  readonly server: Server;
  /** e.g. `http://127.0.0.1:8787` */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, ends open streams, waits for runs, closes the stores. */
  close(): Promise<void>;
}

/**
 * Creates the server (`createServer`) and listens on `host:port`. Without
 * `tools` it serves the shop example (its tools and gate rules on
 * `shop.db` in `dataDir`, closed with the server), without `model` the
 * shop's offline chat (paced by `streamingDelay`): the default domain,
 * loaded at run time (`loadDefaultDomain`). The demo
 * configuration (no `auth`: public tokens, handed out by `/demo.json`)
 * listens on loopback only: any other `host` (`0.0.0.0`, `::`, a LAN or
 * public address) is a `ServerConfigError` before anything is opened.
 *
 * @example
 * const { url, close } = await startServer({ port: 0, dataDir: tmp });
 * await fetch(`${url}/healthz`);
 * await close();
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  return startServerWith(options, (serverOptions) => createServer(serverOptions));
}

/**
 * `startServer` with the server built by `create` (the PostgreSQL server's
 * `createPostgresServer`): the same default domain, loopback rule and
 * listening, over another backend.
 *
 * @example
 * const running = await startServerWith({ port: 0 }, (options) => createPostgresServer({ ...options, connectionString }));
 */
export async function startServerWith<Server extends AssembledServer>(
  { port = 8787, host = '127.0.0.1', ...options }: StartServerOptions,
  create: (options: CreateServerOptions) => Server | Promise<Server>,
): Promise<RunningServer<Server>> {
  if (options.auth === undefined && !isLoopbackAddress(host)) {
    throw new ServerConfigError({
      setting: 'host',
      message:
        `the demo tokens are public, so without an auth file the server listens on loopback only ` +
        `(127.0.0.1, ::1, localhost), not on ${host}; give --auth FILE to serve other machines`,
    });
  }
  const { domain, domainOptions } = await withDefaultDomain(options);
  let server: Server;
  try {
    server = await create({ ...options, ...domainOptions });
  } catch (error) {
    await domain?.close();
    throw error;
  }
  const listening = await new Promise<{ http: ReturnType<typeof createAdaptorServer>; address: AddressInfo }>(
    (resolve, reject) => {
      const http = createAdaptorServer({ fetch: server.app.fetch });
      http.once('error', reject);
      // A thousand clients connecting at once must wait in the accept queue, not be reset: Node's default
      // backlog (511) overflows while the event loop is busy (the kernel caps it at net.core.somaxconn).
      http.listen({ port, host, backlog: listenBacklog }, () =>
        resolve({ http, address: http.address() as AddressInfo }),
      );
    },
  );
  const { http, address } = listening;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    close: async () => {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      if ('closeAllConnections' in http) http.closeAllConnections();
      await closed;
      await server.close();
      await domain?.close();
    },
  };
}

/** The shop's tools (opened in `dataDir`), gate rules and chat model for what `options` leaves out. */
async function withDefaultDomain(
  options: CreateServerOptions,
): Promise<{ domain: ToolsModule | undefined; domainOptions: Partial<CreateServerOptions> }> {
  if (options.tools !== undefined && options.model !== undefined) return { domain: undefined, domainOptions: {} };
  const shop = await loadDefaultDomain();
  const dataDir = options.dataDir ?? '.arbiter';
  // The shop keeps its database beside arbiter's store, in a data directory that may not exist yet.
  if (options.tools === undefined && dataDir !== ':memory:') mkdirSync(dataDir, { recursive: true });
  const domain = options.tools === undefined ? await shop.open({ dataDir }) : undefined;
  return {
    domain,
    domainOptions: {
      ...(domain === undefined ? {} : { tools: domain.tools }),
      // A gate of one's own brings its own rules; the shop's apply only through the default gate.
      ...(domain === undefined || options.gate !== undefined || options.gateRules !== undefined
        ? {}
        : { gateRules: domain.gateRules }),
      ...(options.model === undefined
        ? { model: (locale: Locale) => shop.chatModel({ locale, delay: options.streamingDelay ?? {} }) }
        : {}),
    },
  };
}
