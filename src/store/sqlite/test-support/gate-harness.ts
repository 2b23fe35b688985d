import type { AssistantMessage, ChatMessage } from '../../../core/chat-message.js';
import type { Principal } from '../../../core/principal.js';
import type { AgentEvent } from '../../../events/agent-event.js';
import { EventBus } from '../../../events/event-bus.js';
import { createPaymentTools } from '../../../gate/test-support/payment-tools.js';
import { createTierGate } from '../../../gate/tier-gate.js';
import type { ToolGate } from '../../../gate/tool-gate.js';
import type { Model, ModelResponse } from '../../../models/model.js';
import type { ToolRegistry } from '../../../tools/tool-registry.js';
import { SqliteApprovalBroker } from '../sqlite-approval-broker.js';
import { SqliteAuditLog } from '../sqlite-audit-log.js';
import { SqliteIdempotencyStore } from '../sqlite-idempotency-store.js';
import { SqliteSessionStore } from '../sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from '../sqlite-store.js';

export const payer: Principal = { tenantId: 'bank', userId: 'U1', roles: ['customer'] };

type Reply = AssistantMessage | ((messages: readonly ChatMessage[]) => AssistantMessage);

/**
 * A model that derives its answer from the conversation alone, so a run
 * resumed in another process gets the same answers: the n-th assistant
 * message after the latest user message is `replies[n]`, then "done".
 */
export function statelessModel(replies: readonly Reply[]): Model {
  return {
    name: 'stateless',
    async generate({ messages }): Promise<ModelResponse> {
      let lastUser = messages.length - 1;
      while (lastUser >= 0 && messages[lastUser]?.role !== 'user') lastUser -= 1;
      const answered = messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length;
      const reply = replies[answered] ?? { role: 'assistant', content: 'done' };
      const message = typeof reply === 'function' ? reply(messages) : reply;
      return {
        message,
        usage: { inputTokens: 10, outputTokens: 5 },
        finishReason: message.tool_calls === undefined ? 'stop' : 'tool_calls',
      };
    },
  };
}

/** An assistant message with tool calls whose ids are given (stable across processes). */
export function callsWithIds(...entries: readonly [id: string, name: string, args: unknown][]): AssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: entries.map(([id, name, args]) => ({
      id,
      type: 'function' as const,
      function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
    })),
  };
}

export interface GateHarness {
  readonly store: SqliteStore;
  readonly sessions: SqliteSessionStore;
  readonly broker: SqliteApprovalBroker;
  readonly idempotency: SqliteIdempotencyStore;
  readonly audit: SqliteAuditLog;
  readonly tools: ToolRegistry;
  readonly gate: ToolGate;
  readonly events: EventBus;
  readonly seen: AgentEvent[];
  /** The options every run of the harness shares. */
  readonly runOptions: {
    readonly tools: ToolRegistry;
    readonly gate: ToolGate;
    readonly idempotency: SqliteIdempotencyStore;
    readonly audit: SqliteAuditLog;
    readonly principal: Principal;
    readonly events: EventBus;
  };
}

/** The gate's SQLite pieces over one store (`:memory:` or a file), with the payment tools. */
export function openGateHarness({
  path = ':memory:',
  now,
  ttlMs,
  onExecute,
  idempotencyScope,
  claimLeaseMs,
}: {
  path?: string;
  /** The lease the harness's process renews its idempotency claims within (default the store's). */
  claimLeaseMs?: number;
  now?: () => number;
  ttlMs?: number;
  onExecute?: Parameters<typeof createPaymentTools>[0]['onExecute'];
  idempotencyScope?: Parameters<typeof createPaymentTools>[0]['idempotencyScope'];
} = {}): GateHarness {
  const store = openSqliteStore({ path });
  const database = store.database;
  const tools = createPaymentTools({
    database,
    ...(onExecute === undefined ? {} : { onExecute }),
    ...(idempotencyScope === undefined ? {} : { idempotencyScope }),
  });
  const gate = createTierGate({ tools });
  const idempotency = new SqliteIdempotencyStore({
    database,
    ...(claimLeaseMs === undefined ? {} : { leaseMs: claimLeaseMs }),
  });
  const audit = new SqliteAuditLog({ database });
  const broker = new SqliteApprovalBroker({
    database,
    ...(now === undefined ? {} : { now }),
    ...(ttlMs === undefined ? {} : { ttlMs }),
  });
  const events = new EventBus();
  const seen: AgentEvent[] = [];
  events.subscribe((event) => {
    seen.push(event);
  });
  return {
    store,
    sessions: new SqliteSessionStore({ database }),
    broker,
    idempotency,
    audit,
    tools,
    gate,
    events,
    seen,
    runOptions: { tools, gate, idempotency, audit, principal: payer, events },
  };
}

/** The tool message that answered a call, if any. */
export function toolMessage(messages: readonly ChatMessage[], toolCallId: string): string | undefined {
  const found = messages.find((message) => message.role === 'tool' && message.tool_call_id === toolCallId);
  return found?.role === 'tool' ? found.content : undefined;
}
