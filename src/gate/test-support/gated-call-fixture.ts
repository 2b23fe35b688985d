import { emptyCallHistory } from '../../core/call-history.js';
import type { AgentEvent } from '../../events/agent-event.js';
import { EventBus } from '../../events/event-bus.js';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolDefinition } from '../../tools/tool-types.js';
import { denyAllApprovals } from '../approval-broker.js';
import type { AuditEntry } from '../audit-log.js';
import { gateTexts } from '../gate-texts.js';
import type { GatedCall, GateRuntime } from '../gated-call.js';
import { allowAllGate } from '../tool-gate.js';

/** A refund tool, a gate runtime that records its events and audit entries, and one call of the tool. */
export function gatedCallFixture({
  runtime: overrides = {},
  tool: toolOverrides = {},
  args = { order_id: 'SO20260901', amount_cents: 2000 },
}: {
  runtime?: Partial<GateRuntime>;
  tool?: Partial<ToolDefinition<Record<string, unknown>, unknown>>;
  args?: Record<string, unknown>;
} = {}) {
  const events: AgentEvent[] = [];
  const audited: AuditEntry[] = [];
  const bus = new EventBus();
  bus.subscribe((event) => {
    events.push(event);
  });
  const registry = new ToolRegistry().register(
    defineTool<Record<string, unknown>>({
      name: 'apply_refund',
      description: 'Refund an order. Not for lookups: use query_order.',
      parameters: { type: 'object', properties: { order_id: { type: 'string' }, amount_cents: { type: 'integer' } } },
      sideEffect: 'irreversible',
      execute: () => ({ refunded: true }),
      ...toolOverrides,
    }),
  );
  const tool = registry.get('apply_refund');
  if (tool === undefined) throw new Error('the fixture tool is missing');
  const controller = new AbortController();
  const runtime: GateRuntime = {
    runId: 'run_1',
    sessionId: 'session_1',
    principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
    gate: allowAllGate,
    approvals: denyAllApprovals,
    idempotency: undefined,
    audit: { append: (entry) => void audited.push(entry) },
    emitter: bus.forRun('run_1'),
    signal: controller.signal,
    gateTexts: gateTexts('en'),
    ...overrides,
  };
  const call: GatedCall = {
    step: 1,
    toolCallId: 'call_1',
    toolName: 'apply_refund',
    startedAt: performance.now(),
    tool,
    args,
    argumentsHash: 'hash_1',
    shownArguments: args,
    context: {
      runId: 'run_1',
      sessionId: 'session_1',
      step: 1,
      toolCallId: 'call_1',
      principal: runtime.principal,
      signal: controller.signal,
      locale: 'en',
      history: emptyCallHistory,
    },
    releaseHistory: () => {},
    decision: 'allowed',
    rule: undefined,
    approver: undefined,
  };
  return { runtime, call, events, audited, controller };
}
