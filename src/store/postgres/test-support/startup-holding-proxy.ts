import { createServer, type Socket, connect as tcpConnect } from 'node:net';

/** A connection whose startup the proxy holds back: its backend, to be ended while nothing of it has been read. */
export interface HeldStartup {
  /** The backend's process id (from its `BackendKeyData`), for `pg_terminate_backend`. */
  readonly processId: number;
}

/** What `startStartupHoldingProxy` hands a test. */
export interface StartupHoldingProxy {
  /** `postgresql://…` through the proxy, to the target's user and database. */
  readonly connectionString: string;
  /**
   * Holds back what the server sends on the next connection opened through
   * the proxy, up to and past its `ReadyForQuery`, until the server closes
   * it; then writes all of it to the client in one write, so the client
   * reads the end of its startup and whatever the server said last (a
   * `57P01` `FATAL`) in one read. Resolves once the `ReadyForQuery` is held.
   */
  holdNextStartup(): Promise<HeldStartup>;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a real PostgreSQL server that can put a server's
 * last words in the same read as the end of a connection's startup: the
 * moment a restart or `pg_terminate_backend` hits a connection that has
 * just been opened, which node-postgres hands to its pool's caller in the
 * middle of a read (a listener the caller adds after its `await` comes too
 * late). Every other connection is passed through as it is.
 *
 * @example
 * const proxy = await startStartupHoldingProxy({ connectionString: cluster.connectionString });
 * const held = proxy.holdNextStartup();
 * const query = database.query('SELECT 1'); // on a database opened on proxy.connectionString
 * await admin.query('SELECT pg_terminate_backend($1)', [(await held).processId]);
 */
export async function startStartupHoldingProxy({
  connectionString,
}: {
  connectionString: string;
}): Promise<StartupHoldingProxy> {
  const target = new URL(connectionString);
  const sockets = new Set<Socket>();
  let armed: ((held: HeldStartup) => void) | undefined;
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // Either side may go first; the other is ended with it.
      socket.on('error', () => {});
    }
    client.on('data', (chunk) => upstream.write(chunk));
    client.on('close', () => upstream.destroy());
    const onHeld = armed;
    armed = undefined;
    if (onHeld === undefined) {
      upstream.pipe(client);
      return;
    }
    let held = Buffer.alloc(0);
    let told = false;
    upstream.on('data', (chunk: Buffer) => {
      held = Buffer.concat([held, chunk]);
      if (told) return;
      const startup = readStartup(held);
      if (startup === undefined) return;
      told = true;
      onHeld(startup);
    });
    upstream.on('close', () => {
      client.end(held);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP port');
  const proxied = new URL(connectionString);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(address.port);
  return {
    connectionString: proxied.toString(),
    holdNextStartup: () =>
      new Promise<HeldStartup>((resolve) => {
        armed = resolve;
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The backend's process id once `bytes` (what the server sent) hold its startup up to `ReadyForQuery`. */
function readStartup(bytes: Buffer): HeldStartup | undefined {
  let processId: number | undefined;
  for (let offset = 0; offset + 5 <= bytes.length; ) {
    const type = String.fromCharCode(bytes[offset] as number);
    const end = offset + 1 + bytes.readInt32BE(offset + 1);
    if (end > bytes.length) return undefined;
    if (type === 'K') processId = bytes.readInt32BE(offset + 5);
    if (type === 'Z') return processId === undefined ? undefined : { processId };
    offset = end;
  }
  return undefined;
}
