import { createMcpHandler } from '@modelcontextprotocol/server';
import type { Awaitable } from '../../core/awaitable.js';
import type { Locale } from '../../core/locale.js';
import type { Principal } from '../../core/principal.js';
import { HttpError } from '../../errors/http-error.js';
import type { McpToolPipeline } from './call-tool-through-gate.js';
import { createArbiterMcpServer } from './create-arbiter-mcp-server.js';

/** The per-principal limits an MCP endpoint applies (the server's `ServerLimits` is one). */
export interface McpLimits {
  /** Takes one of the principal's slots for the request's duration; throws a 429 `HttpError` beyond. */
  openStream(principal: Principal): Awaitable<() => void>;
  /** Counts one call; throws a 429 `HttpError` beyond the per-minute limit. */
  sendMessage(principal: Principal): Awaitable<void>;
}

/** A mounted MCP endpoint: serve a request, and close what is in flight. */
export interface McpHttpRoute {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

const principalKey = 'arbiterPrincipal';
const localeKey = 'arbiterLocale';

/**
 * arbiter's tools over MCP Streamable HTTP (the SDK's `createMcpHandler`:
 * 2026-07-28 requests, and 2025-era ones served statelessly), behind the
 * server's bearer auth: no valid token, 401 with `WWW-Authenticate:
 * Bearer` before anything MCP is read; the token's principal (tenant,
 * user, roles) is whom every call acts for; each request holds one of the
 * principal's stream slots and each `tools/call` counts as a message
 * against the per-minute limit (`limits`). Calls go through
 * `callToolThroughGate`. `Accept-Language: zh…` words arbiter's sentences
 * in Chinese.
 *
 * @example
 * const mcp = createMcpHttpRoute({ pipeline, authenticate, limits });
 * app.all('/mcp', (c) => mcp.fetch(c.req.raw));
 */
export function createMcpHttpRoute({
  pipeline,
  authenticate,
  limits,
  maxRequestBodySize,
  approveInClient = () => false,
}: {
  pipeline: McpToolPipeline;
  /** `Authorization` header → principal, or undefined (the server's `createAuthenticator`). */
  authenticate: (authorization: string | undefined) => Principal | undefined;
  limits?: McpLimits;
  /** Largest request body, answered 413 beyond. Default the SDK's (4 MiB). */
  maxRequestBodySize?: number;
  /**
   * Whether this principal may decide his own held calls in his client (form elicitation,
   * 2026-07-28 clients only: a stateless 2025-era request cannot carry the answer back). Default never.
   */
  approveInClient?: (principal: Principal) => boolean;
}): McpHttpRoute {
  const limited: McpToolPipeline =
    limits === undefined ? pipeline : { ...pipeline, beforeCall: (principal) => limits.sendMessage(principal) };
  const handler = createMcpHandler(
    ({ authInfo, era }) => {
      const principal = authInfo?.extra?.[principalKey] as Principal | undefined;
      // Only reached through `fetch` below, which always sets it: a request without one is a wiring fault.
      if (principal === undefined) throw new Error('MCP request without an authenticated principal');
      const locale = (authInfo?.extra?.[localeKey] as Locale | undefined) ?? 'en';
      return createArbiterMcpServer({
        pipeline: limited,
        principal,
        locale,
        era,
        approveInClient: era === 'modern' && approveInClient(principal),
      });
    },
    { ...(maxRequestBodySize === undefined ? {} : { maxRequestBodySize }), onerror: () => {} },
  );
  return {
    fetch: async (request) => {
      const principal = authenticate(request.headers.get('authorization') ?? undefined);
      if (principal === undefined) {
        return Response.json(
          { error: { code: 'unauthenticated', message: 'a valid bearer token is required' } },
          { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } },
        );
      }
      let release: () => void;
      try {
        release = await (limits?.openStream(principal) ?? (() => {}));
      } catch (error) {
        if (!HttpError.isInstance(error)) throw error;
        return Response.json(error.toBody(), { status: error.status, headers: { ...error.headers } });
      }
      const locale: Locale = /^zh\b/i.test(request.headers.get('accept-language') ?? '') ? 'zh-CN' : 'en';
      try {
        return await handler.fetch(request, {
          authInfo: {
            token: 'verified-by-arbiter',
            clientId: principal.userId,
            scopes: [...principal.roles],
            extra: { [principalKey]: principal, [localeKey]: locale },
          },
        });
      } finally {
        release();
      }
    },
    close: () => handler.close(),
  };
}
