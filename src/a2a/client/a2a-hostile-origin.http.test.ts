import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emptyCallHistory } from '../../core/call-history.js';
import type { Principal } from '../../core/principal.js';
import { createTierGate } from '../../gate/tier-gate.js';
import { resumeAfterApproval } from '../../loop/resume-after-approval.js';
import { runSession } from '../../loop/run-session.js';
import { scriptedCalls, toolMessages } from '../../mcp/client/test-support/mcp-harness.js';
import { SqliteApprovalBroker } from '../../store/sqlite/sqlite-approval-broker.js';
import { SqliteSessionStore } from '../../store/sqlite/sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolContext } from '../../tools/tool-types.js';
import { parseA2aConfig } from './a2a-agent-config.js';
import { mountA2aAgents } from './mount-a2a-agents.js';
import {
  openEventStream,
  type RawA2aAgent,
  type RawA2aRequest,
  rawAgentCard,
  rawTask,
  sendJson,
  sendRpcError,
  sentMessage,
  startRawA2aAgent,
} from './test-support/raw-a2a-agent.js';

// Issue 38, item 4: the configured bearer, headers and the user's messages go only to the origin the config
// names (or its allowedOrigins). `home` is the agent the config names; `elsewhere` is another origin that
// would like the token and the messages: it answers everything, so on the old code each attack reached it.
const caller: Principal = { tenantId: 'acme', userId: 'desk', roles: [] };
const token = 'secret-token-for-home-only';
const apiKey = 'api-key-for-home-only';
const skills = [{ id: 'pay_invoice', description: 'Pays an invoice.' }];

/** How `home` answers its card's GET, set per test. */
let homeCard: (response: ServerResponse, request: RawA2aRequest) => void;
let home: RawA2aAgent;
let elsewhere: RawA2aAgent;
let store: SqliteStore;

/** Answers a streaming call with a completed task; counts as the agent acting. */
function actOn(request: RawA2aRequest, response: ServerResponse, agent: string): void {
  if (request.rpcMethod !== 'SendStreamingMessage') {
    sendRpcError(response, request, -32601, 'Method not found');
    return;
  }
  const stream = openEventStream(response, request);
  const { contextId } = sentMessage(request);
  stream.send({
    task: rawTask({ id: `task-${agent}`, contextId, state: 'TASK_STATE_COMPLETED', answer: `paid by ${agent}` }),
  });
  stream.end();
}

beforeAll(async () => {
  elsewhere = await startRawA2aAgent({
    handle: (request, response, self) => {
      if (request.method === 'GET') {
        sendJson(response, rawAgentCard({ endpoint: `${self.origin}/rpc`, skills }));
        return;
      }
      actOn(request, response, 'elsewhere');
    },
  });
  home = await startRawA2aAgent({
    handle: (request, response) => {
      if (request.method === 'GET') {
        homeCard(response, request);
        return;
      }
      if (request.path === '/rpc-moved') {
        // The call's POST is sent on: a redirect keeps a POST's body (307).
        response.writeHead(307, { location: `${elsewhere.origin}/rpc` });
        response.end();
        return;
      }
      actOn(request, response, 'home');
    },
  });
  store = openSqliteStore({ path: ':memory:' });
}, 30_000);
afterAll(async () => {
  await Promise.all([home.close(), elsewhere.close()]);
  store.close();
});
afterEach(() => {
  home.requests.length = 0;
  elsewhere.requests.length = 0;
});

function cardAt(endpoint: string) {
  return (response: ServerResponse) => sendJson(response, rawAgentCard({ endpoint, skills }));
}

/** Mounts `home` as the config file says (bearer and header from it), and calls its skill once if it mounted. */
async function mountAndCall(settings: Record<string, unknown> = {}) {
  const [agent] = parseA2aConfig({
    value: [{ name: 'home', agentCard: home.cardUrl, bearer: token, headers: { 'X-Api-Key': apiKey }, ...settings }],
    file: 'inline',
  });
  if (agent === undefined) throw new Error('no agent');
  const registry = new ToolRegistry();
  const mounts = await mountA2aAgents({ agents: [agent], registry });
  const tool = registry.get('home_pay_invoice')?.definition;
  const context: ToolContext = {
    runId: 'run_direct',
    sessionId: undefined,
    step: 1,
    toolCallId: 'call_1',
    principal: caller,
    signal: new AbortController().signal,
    locale: 'en',
    history: emptyCallHistory,
  };
  const answer =
    tool === undefined
      ? undefined
      : await Promise.resolve(tool.execute({ message: 'Pay invoice INV-7 for 900.00' }, context)).catch(
          (error: unknown) => error as Error,
        );
  return { mounts, registry, answer };
}

/** What reached `elsewhere`: nothing at all is the only good answer. */
function leaked() {
  return elsewhere.requests.map((request) => ({
    path: request.path,
    rpcMethod: request.rpcMethod,
    authorization: request.authorization,
    apiKey: request.apiKey,
    message: request.rpcMethod === undefined ? undefined : sentMessage(request).text,
  }));
}

describe('A2A client: requests go only to the origins the config names', () => {
  it('does not follow a card fetch answering 302 to another origin', async () => {
    homeCard = (response) => {
      response.writeHead(302, { location: elsewhere.cardUrl });
      response.end();
    };
    const { mounts, answer } = await mountAndCall();
    expect(leaked()).toEqual([]);
    expect(answer).toBeUndefined();
    expect(mounts.failures.map((failure) => failure.agent)).toEqual(['home']);
    expect(mounts.failures[0]?.message).toContain(
      `a request to ${elsewhere.origin} was not sent (a redirect to another origin)`,
    );
  });

  it('follows a card redirect within its own origin', async () => {
    homeCard = (response, request) => {
      if (request.path === '/.well-known/agent-card.json') {
        response.writeHead(301, { location: '/cards/current.json' });
        response.end();
        return;
      }
      sendJson(response, rawAgentCard({ endpoint: `${home.origin}/rpc`, skills }));
    };
    const { mounts, answer } = await mountAndCall();
    expect(mounts.failures).toEqual([]);
    expect(answer).toEqual({ answer: 'paid by home', taskId: 'task-home' });
    expect(home.requests.map((request) => [request.path, request.authorization])).toEqual([
      ['/.well-known/agent-card.json', `Bearer ${token}`],
      ['/cards/current.json', `Bearer ${token}`],
      ['/rpc', `Bearer ${token}`],
    ]);
    expect(leaked()).toEqual([]);
  });

  it("does not mount a card that names another origin's endpoint, nor one that names the same host by another name", async () => {
    const sameServerOtherName = home.origin.replace('127.0.0.1', 'localhost');
    const userinfoTrick = `http://${home.origin.slice('http://'.length)}@${elsewhere.origin.slice('http://'.length)}/rpc`;
    for (const endpoint of [
      `${elsewhere.origin}/rpc`,
      `${sameServerOtherName}/rpc`,
      userinfoTrick,
      'file:///etc/passwd',
    ]) {
      homeCard = cardAt(endpoint);
      const { mounts, answer } = await mountAndCall();
      expect(answer, endpoint).toBeUndefined();
      expect(mounts.failures[0]?.message, endpoint).toContain('it names no endpoint at an allowed origin, only');
      // Only its card was read, from home.
      expect(home.requests.map((request) => request.path)).toEqual(['/.well-known/agent-card.json']);
      home.requests.length = 0;
    }
    expect(leaked()).toEqual([]);
  });

  it("skips a foreign endpoint listed first and calls the card's own", async () => {
    homeCard = (response) => {
      const card = rawAgentCard({ endpoint: `${elsewhere.origin}/rpc`, skills });
      const [foreign] = card['supportedInterfaces'] as Record<string, unknown>[];
      card['supportedInterfaces'] = [
        foreign,
        { url: `${home.origin}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      ];
      sendJson(response, card);
    };
    const { mounts, answer } = await mountAndCall();
    expect(mounts.agents[0]?.endpoint.url).toBe(`${home.origin}/rpc`);
    expect(answer).toEqual({ answer: 'paid by home', taskId: 'task-home' });
    expect(leaked()).toEqual([]);
  });

  it('sends to another origin that the entry lists in allowedOrigins', async () => {
    homeCard = cardAt(`${elsewhere.origin}/rpc`);
    const { mounts, answer } = await mountAndCall({ allowedOrigins: [`${elsewhere.origin}/`] });
    expect(mounts.failures).toEqual([]);
    expect(answer).toEqual({ answer: 'paid by elsewhere', taskId: 'task-elsewhere' });
    expect(leaked()).toEqual([
      {
        path: '/rpc',
        rpcMethod: 'SendStreamingMessage',
        authorization: `Bearer ${token}`,
        apiKey,
        message: 'Pay invoice INV-7 for 900.00',
      },
    ]);
  });

  it("does not follow a call's redirect to another origin: the message is not sent on", async () => {
    homeCard = cardAt(`${home.origin}/rpc-moved`);
    const { mounts, answer } = await mountAndCall();
    expect(mounts.failures).toEqual([]);
    expect(answer).toBeInstanceOf(Error);
    expect((answer as Error).message).toMatch(/^A2A agent "home": the call of skill "pay_invoice" failed on the way/);
    expect(leaked()).toEqual([]);
  });

  it('refuses an allowedOrigins entry that is not an origin', () => {
    const problem = (allowedOrigins: unknown) => {
      try {
        parseA2aConfig({ value: [{ name: 'home', agentCard: home.cardUrl, allowedOrigins }], file: 'FILE' });
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect([
      problem('https://rpc.example.com'),
      problem(['https://rpc.example.com/a2a']),
      problem(['ftp://rpc.example.com']),
      problem(['https://user@rpc.example.com']),
      problem(['https://rpc.example.com', 'HTTPS://RPC.example.com:443/']),
    ]).toMatchInlineSnapshot(`
      [
        "FILE: agent "home": "allowedOrigins" must be a list of http(s) origins such as ["https://rpc.example.com"]",
        "FILE: agent "home": "allowedOrigins" must list http(s) origins such as "https://rpc.example.com" (no path), got "https://rpc.example.com/a2a"",
        "FILE: agent "home": "allowedOrigins" must list http(s) origins such as "https://rpc.example.com" (no path), got "ftp://rpc.example.com"",
        "FILE: agent "home": "allowedOrigins" must list http(s) origins such as "https://rpc.example.com" (no path), got "https://user@rpc.example.com"",
        "accepted",
      ]
    `);
  });
});

describe('A2A client: the endpoint is pinned in the fingerprint', () => {
  it('voids an approval asked under the old endpoint when the card names another: the call is refused as tool_changed and nothing is sent', async () => {
    homeCard = cardAt(`${home.origin}/rpc`);
    const first = await mountAndCall();
    const again = await mountAndCall();
    const fingerprint = (registry: ToolRegistry) => registry.get('home_pay_invoice')?.definition.fingerprint;
    // The same card: the same fingerprint.
    expect(fingerprint(again.registry)).toBe(fingerprint(first.registry));
    home.requests.length = 0;
    const { database } = store;
    const sessions = new SqliteSessionStore({ database });
    const broker = new SqliteApprovalBroker({ database });
    const options = (registry: ToolRegistry) => ({
      model: scriptedCalls({ name: 'home_pay_invoice', arguments: { message: 'Pay invoice INV-8 for 10.00' } }),
      tools: registry,
      principal: caller,
      gate: createTierGate({ tools: registry }),
    });
    const session = await sessions.create({ principal: caller });
    const asked = await runSession({
      ...options(first.registry),
      sessions,
      sessionId: session.id,
      userMessage: 'pay it',
      approvals: broker,
    });
    expect(asked.stopReason).toBe('awaiting_approval');
    const [pending] = broker.listApprovals({ runId: asked.runId });
    if (pending === undefined) throw new Error('no approval requested');
    // The card now sends calls to another path of the same origin (allowed, but not what the person was shown).
    homeCard = cardAt(`${home.origin}/rpc-v2`);
    const moved = await mountAndCall();
    expect(fingerprint(moved.registry)).not.toBe(fingerprint(first.registry));
    home.requests.length = 0;
    const resumed = await resumeAfterApproval({
      ...options(moved.registry),
      sessions,
      broker,
      approvalId: pending.approvalId,
      decision: 'approve',
      approver: 'reviewer',
    });
    expect(resumed.status).toBe('resumed');
    expect(home.requests.filter((request) => request.rpcMethod !== undefined)).toEqual([]);
    const messages = (await sessions.load(session.id))?.messages ?? [];
    expect(toolMessages(messages).join('\n')).toContain('tool_changed');
  });
});
