import {
  type CallToolRequestOptions,
  Client,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { uncheckedCallToolResult } from './check-call-tool-result.js';
import { checkToolListing } from './check-tool-listing.js';
import { McpConnectionError } from './mcp-connection-error.js';
import type { McpCredentials, McpServerConfig } from './mcp-server-config.js';

/** arbiter as the MCP client it presents itself as. */
const clientInfo = { name: 'arbiter', version: '0.1.0' } as const;
/** The most pages of a tool listing read: a server that never stops paging is refused. */
const maxListingPages = 1000;
/** How much of a stdio server's stderr is kept for an error message. */
const stderrTailChars = 2000;

/** One progress notification of a call: `progress` out of `total`, if the server knows it. */
export interface McpProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What one `tools/call` needs besides name and arguments. */
export interface McpCallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Without it the request asks for no progress (no progress token). */
  readonly onProgress?: ((progress: McpProgress) => void) | undefined;
  /**
   * The call may be sent again on a fresh connection when the connection
   * dropped while it was in flight (a `read` tool: it changed nothing).
   * Calls that never reached the server (not connected, session expired)
   * are always sent again once.
   */
  readonly retryInFlight: boolean;
  /**
   * The tool as the server listed it. Given, and declaring no `x-mcp-header`
   * parameter, the call goes out as a plain `tools/call` request (the SDK's
   * `request()`), its result unchecked: the caller checks it
   * (`checkCallToolResult`). Otherwise the SDK's `callTool` sends it: it
   * mirrors declared parameters into `Mcp-Param-*` headers on a 2026-07-28
   * HTTP connection (reading the schema from here, or without it from its
   * response cache, probed on every call) and checks the result against the
   * protocol's schema and an `outputSchema` given here.
   */
  readonly toolDefinition?: Tool;
}

/** A server's tool listing as checked: the tools to build, and the ones refused before they were read. */
export interface McpToolListing {
  readonly tools: readonly Tool[];
  readonly refused: readonly { readonly tool: string; readonly problem: string }[];
}

/** When a call must have ended (`performance.now()` time), and the limit it came from. */
interface Deadline {
  readonly at: number;
  readonly timeoutMs: number;
}

/**
 * One connection to one MCP server, opened on first use and reopened when
 * it drops: a stdio server that exits, a Streamable HTTP session the server
 * no longer knows. The run using it does not notice, unless a call that
 * may have acted was cut off (see `McpCallOptions.retryInFlight`).
 *
 * @example
 * const connection = new McpConnection({ server: { name: 'everything', command: 'mcp-server-everything' } });
 * const { tools } = await connection.listTools();
 * const result = await connection.callTool('echo', { message: 'hi' }, { signal, timeoutMs: 10_000, retryInFlight: true });
 */
export class McpConnection {
  readonly #server: McpServerConfig;
  readonly #credentials: McpCredentials;
  readonly #onToolsChanged: (() => void) | undefined;
  #client: Promise<Client> | undefined;
  /** The client `#client` resolved to, once it has. */
  #current: Client | undefined;
  #closed = false;
  #stderrTail = '';
  /** Times the connection was opened; more than one means it was reopened. */
  connects = 0;

  constructor({
    server,
    credentials = {},
    onToolsChanged,
  }: {
    server: McpServerConfig;
    /** Added to the server-level credentials: a principal's own, for a per-principal connection. */
    credentials?: McpCredentials;
    /** Called when the server says its tool list changed (`notifications/tools/list_changed`). */
    onToolsChanged?: () => void;
  }) {
    this.#server = server;
    this.#credentials = credentials;
    this.#onToolsChanged = onToolsChanged;
  }

  /**
   * Every tool the server offers, all pages, each checked before anything
   * recursive reads it (see `checkToolListing`): a tool nested too deep is
   * in `refused`, the others in `tools`. A listing that is no listing or is
   * too large rejects with `McpConnectionError`, naming the server.
   */
  async listTools({ signal }: { signal?: AbortSignal } = {}): Promise<McpToolListing> {
    return this.#withRetry(true, async (client) => {
      const tools: Tool[] = [];
      const refused: { tool: string; problem: string }[] = [];
      let chars = 0;
      let cursor: string | undefined;
      let pages = 0;
      do {
        pages += 1;
        if (pages > maxListingPages) {
          throw new McpConnectionError({
            server: this.#server.name,
            message: `MCP server "${this.#server.name}" could not be mounted: its tool listing has more than ${maxListingPages} pages`,
          });
        }
        // A plain request with an unchecked result: the SDK's schema of tools/list validates recursively, and a
        // deep enough schema overflows the stack there. Its cache is bypassed too (its outputSchema checks run on a
        // backtracking regex engine); arbiter checks the listing and each tool itself (see McpServerMount).
        const result = await client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          uncheckedCallToolResult,
          { timeout: this.#server.timeoutMs ?? 60_000, ...(signal === undefined ? {} : { signal }) },
        );
        const page = checkToolListing({ result, charsSoFar: chars });
        if ('problem' in page) {
          throw new McpConnectionError({
            server: this.#server.name,
            message: `MCP server "${this.#server.name}" could not be mounted: ${page.problem}`,
          });
        }
        tools.push(...page.tools);
        refused.push(...page.refused);
        chars += page.chars;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return { tools, refused };
    });
  }

  /**
   * Calls one tool within `options.timeoutMs` from now, waiting for a
   * connection included: past that, or when `options.signal` aborts, the
   * request is cancelled on the server too (`notifications/cancelled`) and
   * the call rejects with the SDK's `RequestTimeout` error. The SDK keeps
   * that time limit with the timer it sets for every request. Resolves to
   * the server's result as the SDK decoded it; see
   * `McpCallOptions.toolDefinition` for when it is checked.
   */
  callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<unknown> {
    const { signal, timeoutMs, onProgress, toolDefinition, retryInFlight } = options;
    const startedAt = performance.now();
    const plain = toolDefinition !== undefined && !declaresHeaderParameters(toolDefinition);
    const requestOptions: RequestOptions & CallToolRequestOptions =
      toolDefinition === undefined || plain
        ? { signal, timeout: timeoutMs }
        : { signal, timeout: timeoutMs, toolDefinition };
    if (onProgress !== undefined) {
      requestOptions.onprogress = (progress) =>
        onProgress({
          progress: progress.progress,
          ...(progress.total === undefined ? {} : { total: progress.total }),
          ...(progress.message === undefined ? {} : { message: progress.message }),
        });
    }
    const params = { name, arguments: args };
    // The SDK's callTool costs about 45 µs more a call than its request() (its result schema, its wrappers).
    const send = plain
      ? (client: Client): Promise<unknown> =>
          client.request({ method: 'tools/call', params }, uncheckedCallToolResult, requestOptions)
      : (client: Client): Promise<unknown> => client.callTool(params, requestOptions);
    // Sent later (after waiting for a connection, or again on a fresh one), the request gets the time left.
    const sendLate = (client: Client) => {
      requestOptions.timeout = Math.max(0, startedAt + timeoutMs - performance.now());
      return send(client);
    };
    const deadline = (): Deadline => ({ at: startedAt + timeoutMs, timeoutMs });
    const client = this.#closed ? undefined : this.#current;
    if (client === undefined) return this.#withRetry(retryInFlight, sendLate, deadline());
    // Connected (every call but a first or one after a drop): out at once with the whole limit, and no
    // async frame of arbiter's between the SDK's answer and the caller; only a failure costs more.
    return send(client).catch((error: unknown) =>
      this.#afterFailure(error, client, retryInFlight, sendLate, deadline()),
    );
  }

  /**
   * The official SDK client under this connection, connected. Calls made on
   * it bypass arbiter entirely; the benchmark compares with them.
   */
  sdkClient(): Promise<Client> {
    return this.#connected();
  }

  /**
   * The protocol revision agreed with the server, connecting first if need
   * be: `2026-07-28` when the server offers it, else the 2025 revision its
   * `initialize` answer named (`2025-11-25` for a current server).
   */
  async protocolVersion(): Promise<string | undefined> {
    const client = await this.#connected();
    return client.getNegotiatedProtocolVersion();
  }

  /** The process id of a stdio server while connected (tests use it to kill the server). */
  async pid(): Promise<number | undefined> {
    const client = await this.#connected();
    const transport = client.transport;
    return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    this.#current = undefined;
    if (client !== undefined) await client.then((open) => open.close()).catch(() => {});
  }

  async #withRetry<T>(retryInFlight: boolean, action: (client: Client) => Promise<T>, deadline?: Deadline): Promise<T> {
    // Connected: the client itself, without a turn through the opening promise (every call pays for that turn).
    const client = (this.#closed ? undefined : this.#current) ?? (await this.#connectedBefore(deadline));
    try {
      return await action(client);
    } catch (error) {
      return this.#afterFailure(error, client, retryInFlight, action, deadline);
    }
  }

  /**
   * After a request on `client` failed: sends it again once on a fresh
   * connection when it never reached the server, or was cut off in flight
   * and `retryInFlight`; otherwise rejects with the failure (a call that may
   * have acted with `McpConnectionError`).
   */
  async #afterFailure<T>(
    error: unknown,
    client: Client,
    retryInFlight: boolean,
    action: (client: Client) => Promise<T>,
    deadline: Deadline | undefined,
  ): Promise<T> {
    const kind = failureKind(error);
    if (kind === 'other') throw error;
    this.#drop(client);
    if (kind === 'in_flight' && !retryInFlight) {
      throw new McpConnectionError({
        server: this.#server.name,
        message: `the connection to MCP server "${this.#server.name}" dropped during a call that may have acted; it was not repeated`,
        cause: error,
      });
    }
    return action(await this.#connectedBefore(deadline));
  }

  /** The connected client, or the SDK's `RequestTimeout` error once `deadline` has passed while waiting for it. */
  #connectedBefore(deadline: Deadline | undefined): Promise<Client> {
    const connecting = this.#connected();
    if (deadline === undefined) return connecting;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: deadline.timeoutMs })),
        Math.max(0, deadline.at - performance.now()),
      );
      connecting.then(
        (client) => {
          clearTimeout(timer);
          resolve(client);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  #connected(): Promise<Client> {
    if (this.#closed) {
      return Promise.reject(
        new McpConnectionError({ server: this.#server.name, message: `MCP server "${this.#server.name}" was closed` }),
      );
    }
    if (this.#client === undefined) {
      const opening = this.#open();
      this.#client = opening;
      // A failed opening is not kept: the next call tries again.
      opening.catch(() => {
        if (this.#client === opening) this.#client = undefined;
      });
    }
    return this.#client;
  }

  async #open(): Promise<Client> {
    const server = this.#server;
    const onToolsChanged = this.#onToolsChanged;
    const client = new Client(clientInfo, {
      capabilities: {},
      // Offer 2026-07-28 first (`server/discover`) and fall back to the 2025-11-25 `initialize`
      // handshake for a server that does not answer it; the SDK's default would never offer 2026.
      versionNegotiation: {
        mode:
          server.protocolVersion === undefined
            ? 'auto'
            : server.protocolVersion === '2025-11-25'
              ? 'legacy'
              : { pin: server.protocolVersion },
      },
      ...(onToolsChanged === undefined
        ? {}
        : { listChanged: { tools: { autoRefresh: false, debounceMs: 50, onChanged: () => onToolsChanged() } } }),
    });
    const transport = this.#transport();
    client.onclose = () => this.#drop(client);
    try {
      await client.connect(transport, { timeout: server.timeoutMs ?? 60_000 });
    } catch (error) {
      await client.close().catch(() => {});
      const tail = this.#stderrTail.trim();
      throw new McpConnectionError({
        server: server.name,
        message: `MCP server "${server.name}" could not be reached: ${error instanceof Error ? error.message : String(error)}${tail === '' ? '' : `; its stderr ends: ${tail.slice(-500)}`}`,
        cause: error,
      });
    }
    this.connects += 1;
    this.#current = client;
    if (this.#closed) {
      await client.close().catch(() => {});
      throw new McpConnectionError({ server: server.name, message: `MCP server "${server.name}" was closed` });
    }
    return client;
  }

  #drop(client: Client): void {
    if (this.#current !== client) return;
    this.#current = undefined;
    this.#client = undefined;
    void client.close().catch(() => {});
  }

  #transport(): Transport {
    const server = this.#server;
    const credentials = this.#credentials;
    if (server.url !== undefined) {
      const headers: Record<string, string> = { ...server.headers, ...credentials.headers };
      const bearer = credentials.bearer ?? server.bearer;
      if (bearer !== undefined) headers['Authorization'] = `Bearer ${bearer}`;
      return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
    }
    const transport = new StdioClientTransport({
      command: server.command ?? '',
      args: [...(server.args ?? [])],
      env: { ...getDefaultEnvironment(), ...server.env, ...credentials.env },
      stderr: 'pipe',
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    });
    // Drained, or a chatty server blocks on a full pipe; the tail explains a failed start.
    transport.stderr?.on('data', (chunk: Buffer | string) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString()).slice(-stderrTailChars);
    });
    return transport;
  }
}

/** Per listed tool: whether its `inputSchema` declares an `x-mcp-header` parameter anywhere. */
const headerDeclarations = new WeakMap<Tool, boolean>();

function declaresHeaderParameters(tool: Tool): boolean {
  let declares = headerDeclarations.get(tool);
  if (declares === undefined) {
    declares = hasKey(tool.inputSchema, 'x-mcp-header', 0);
    headerDeclarations.set(tool, declares);
  }
  return declares;
}

/** Whether `key` is a property name anywhere in `value` (depth-limited: a deeper schema counts as declaring it). */
function hasKey(value: unknown, key: string, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth > 64) return true;
  if (Array.isArray(value)) return value.some((item) => hasKey(item, key, depth + 1));
  return Object.hasOwn(value, key) || Object.values(value).some((item) => hasKey(item, key, depth + 1));
}

/**
 * How a failed request relates to the connection: `unsent` never reached
 * the server (not connected, or a session the server forgot: HTTP 404, or
 * 400 naming the session), `in_flight` was cut off by the connection
 * closing, `other` is anything else (a timeout, an abort, a protocol error).
 */
function failureKind(error: unknown): 'unsent' | 'in_flight' | 'other' {
  // The SDK's request() without a transport (the connection closed just before): never sent.
  if (error instanceof Error && !(error instanceof SdkError) && error.message === 'Not connected') return 'unsent';
  if (!(error instanceof SdkError)) return 'other';
  if (error.code === SdkErrorCode.NotConnected || error.code === SdkErrorCode.SendFailed) return 'unsent';
  if (error.code === SdkErrorCode.ConnectionClosed) return 'in_flight';
  const data = error.data as { status?: unknown; text?: unknown } | undefined;
  const status = data?.status;
  if (status === 404) return 'unsent';
  if (status === 400 && typeof data?.text === 'string' && /session/i.test(data.text)) return 'unsent';
  return 'other';
}
