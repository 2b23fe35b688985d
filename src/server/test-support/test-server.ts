import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthConfig } from '../auth-config.js';
import { type RunningServer, type StartServerOptions, startServer } from '../start-server.js';

/** Tokens of `testAuth` (32 characters or more, as the server demands): two customers of tenant `shop`, its approver, and a customer of another tenant. */
export const testTokens = {
  alice: 'alice-token-0001-0123456789abcdef',
  bob: 'bob-token-0002-0123456789abcdef0123',
  staff: 'staff-token-0003-0123456789abcdef',
  mallory: 'mallory-token-0004-0123456789abcdef',
} as const;

/** The scrape token `startTestServer` configures for `/metrics`. */
export const testMetricsToken = 'metrics-scrape-token-0123456789abcdef';

export const testAuth: AuthConfig = {
  tokens: [
    { token: testTokens.alice, tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
    { token: testTokens.bob, tenantId: 'shop', userId: 'C1002', roles: ['customer'] },
    { token: testTokens.staff, tenantId: 'shop', userId: 'S9001', roles: ['approver'] },
    { token: testTokens.mallory, tenantId: 'other-shop', userId: 'C1001', roles: ['customer', 'approver'] },
  ],
};

/** The test principals plus `dual`: shop customer C1001 (alice's identity) who holds the approver role too. */
export const dualRoleTokens = { ...testTokens, dual: 'dual-role-token-0005-0123456789abcdef' } as const;

/** `testAuth` plus the `dual` token of `dualRoleTokens` (customer and approver, C1001 of shop). */
export const dualRoleAuth: AuthConfig = {
  tokens: [
    ...testAuth.tokens,
    { token: dualRoleTokens.dual, tenantId: 'shop', userId: 'C1001', roles: ['customer', 'approver'] },
  ],
};

/** A server on 127.0.0.1, an ephemeral port and a temporary data directory, with a JSON helper. */
export interface TestServer extends RunningServer {
  readonly dataDir: string;
  request(
    path: string,
    options?: { token?: string; method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

/**
 * Starts a server for a test: fast scripted model (no streaming delay), the
 * test tokens (the demo's with `demoAuth`), `testMetricsToken` for
 * `/metrics`, short heartbeats.
 *
 * @example
 * const server = await startTestServer();
 * const { body } = await server.request('/v1/sessions', { token: testTokens.alice, method: 'POST' });
 */
export async function startTestServer({
  demoAuth = false,
  ...options
}: StartServerOptions & { demoAuth?: boolean } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-server-'));
  const running = await startServer({
    port: 0,
    dataDir,
    ...(demoAuth ? {} : { auth: testAuth }),
    streamingDelay: false,
    heartbeatMs: 1000,
    shutdownGraceMs: 200,
    metricsToken: testMetricsToken,
    onError: () => {},
    ...options,
  });
  return {
    ...running,
    dataDir,
    request: async (path, { token, method = 'GET', body, rawBody, headers = {} } = {}) => {
      const response = await fetch(`${running.url}${path}`, {
        method,
        headers: {
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...(body === undefined && rawBody === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(rawBody !== undefined ? { body: rawBody } : body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    },
    stop: async () => {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
