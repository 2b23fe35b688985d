import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Awaitable } from '../../core/awaitable.js';
import type { ToolCall } from '../../core/chat-message.js';
import type { Locale } from '../../core/locale.js';
import type { Principal } from '../../core/principal.js';
import { HttpError } from '../../errors/http-error.js';
import { InfrastructureError } from '../../errors/infrastructure-error.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ApprovalBroker } from '../../gate/approval-broker.js';
import type { ApprovalRecord } from '../../gate/approval-record.js';
import type { AuditLog } from '../../gate/audit-log.js';
import { bindPrincipalParameters } from '../../gate/bind-principal-parameters.js';
import type { IdempotencyStore } from '../../gate/idempotency-store.js';
import type { ToolGate } from '../../gate/tool-gate.js';
import { parseToolCall } from '../../loop/parse-tool-call.js';
import { createRunRuntime, type RunRuntime } from '../../loop/run-runtime.js';
import { runToolCall } from '../../loop/run-tool-call.js';
import type { ToolCallReport } from '../../loop/tool-call-report.js';
import type { Model } from '../../models/model.js';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import { isRecord } from '../../util/is-record.js';
import { argumentsHash } from '../../util/sha256.js';
import { timeOrderedId } from '../../util/time-ordered-id.js';
import { argumentsText } from '../../validation/nesting-depth.js';
import { type McpRunRecords, recordMcpRun } from './mcp-run.js';
import { mcpServerTexts } from './mcp-server-texts.js';

/** The approvals an MCP server asks and reads (the server's `SqliteApprovalBroker` is one). */
export interface McpApprovals extends ApprovalBroker {
  listApprovals(filter: { runId: string }): Awaitable<readonly ApprovalRecord[]>;
  getApproval(approvalId: string): Awaitable<ApprovalRecord | undefined>;
  resolveApproval(options: {
    approvalId: string;
    decision: 'approve' | 'reject';
    approver: string;
    reason?: string;
  }): Awaitable<ApprovalRecord>;
}

/**
 * What every MCP `tools/call` goes through: arbiter's own tool-call steps
 * over these tools, gate, approvals, idempotency claims and audit log.
 */
export interface McpToolPipeline {
  readonly tools: ToolRegistry;
  readonly gate: ToolGate;
  readonly approvals: McpApprovals;
  readonly idempotency: IdempotencyStore | undefined;
  readonly audit: AuditLog | undefined;
  /** Where each principal's MCP run is recorded, with its tenant (the approval routes read it). */
  readonly runs: McpRunRecords;
  /** Where the calls' events go (`tool:proposed`, `approval:required`, `tool:end` …). Default: nowhere. */
  readonly events?: EventBus;
  /** Default per-call time limit; a tool's own `timeoutMs` wins. */
  readonly toolTimeoutMs?: number;
  /** Called before each call with its principal; throws a 429 `HttpError` when the principal is over a limit. */
  readonly beforeCall?: (principal: Principal) => Awaitable<void>;
  /** Failures nobody else hears of (an infrastructure failure of a tool). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** Never asked: a single tool call needs no model. */
const noModel: Model = {
  name: 'mcp-client',
  generate: () => Promise.reject(new Error('an MCP tool call has no model of its own')),
};

/**
 * Runs one MCP `tools/call` through arbiter's tool runner (`runToolCall`:
 * validation with every issue at once, the principal's bound parameters,
 * the gate, approval, the idempotency claim, execution under its time
 * limit, audit) and answers it as an MCP result. An invalid call is
 * `isError` with the whole model-facing message; a call that needs a
 * person is not run, and the result names the approval and how it is
 * decided; once it is approved, the identical call (same principal, tool
 * and argument hash) runs, once.
 *
 * @example
 * const result = await callToolThroughGate({ pipeline, principal, name: 'query_order', arguments: { order_id: 'SO1' } });
 */
export async function callToolThroughGate({
  pipeline,
  principal,
  name,
  arguments: args = {},
  locale = 'en',
  signal,
}: {
  pipeline: McpToolPipeline;
  principal: Principal;
  name: string;
  arguments?: Record<string, unknown> | undefined;
  locale?: Locale;
  signal?: AbortSignal;
}): Promise<CallToolResult> {
  const texts = mcpServerTexts(locale);
  try {
    await pipeline.beforeCall?.(principal);
  } catch (error) {
    if (HttpError.isInstance(error) && error.status === 429) {
      const retryAfterSeconds = Number(error.headers['Retry-After'] ?? 1);
      return { isError: true, content: [{ type: 'text', text: texts.tooManyCalls({ retryAfterSeconds }) }] };
    }
    throw error;
  }
  const runId = await recordMcpRun({ runs: pipeline.runs, principal, locale });
  const runtime = createRunRuntime(
    {
      model: noModel,
      tools: pipeline.tools,
      messages: [],
      principal,
      gate: pipeline.gate,
      approvals: pipeline.approvals,
      ...(pipeline.idempotency === undefined ? {} : { idempotency: pipeline.idempotency }),
      ...(pipeline.audit === undefined ? {} : { audit: pipeline.audit }),
      ...(pipeline.events === undefined ? {} : { events: pipeline.events }),
      ...(pipeline.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: pipeline.toolTimeoutMs }),
      ...(signal === undefined ? {} : { signal }),
      locale,
    },
    runId,
  );
  // Arguments nested past the limit are not serialised (that recursion overflows): validation refuses them.
  const proposed: ToolCall = { id: '', type: 'function', function: { name, arguments: argumentsText(args) } };
  const call: ToolCall = { ...proposed, id: await toolCallIdFor(runtime, pipeline, proposed) };
  let report: ToolCallReport;
  try {
    report = await runToolCall(runtime, pipeline.tools, call, 1, 'run');
  } catch (error) {
    if (!InfrastructureError.isInstance(error)) throw error;
    (pipeline.onError ?? ((failure: unknown) => console.error('arbiter mcp:', failure)))(error);
    return {
      isError: true,
      content: [{ type: 'text', text: texts.failedOnServer({ tool: name }) }],
    };
  } finally {
    runtime.control.dispose();
  }
  return toCallToolResult(report, { pipeline, texts });
}

/**
 * The call's id: the id of its approval when the same principal already
 * asked for exactly this call (same tool and argument hash) and that
 * approval is still open (pending, or decided and not yet used), so the
 * repeated call finds its decision; otherwise a new one.
 */
async function toolCallIdFor(runtime: RunRuntime, pipeline: McpToolPipeline, call: ToolCall): Promise<string> {
  const fresh = `mcp_${timeOrderedId()}`;
  const checked = parseToolCall(runtime, pipeline.tools, call);
  if (!checked.ok || runtime.principal === undefined) return fresh;
  const hash = argumentsHash(
    bindPrincipalParameters({ args: checked.args, tool: checked.tool, principal: runtime.principal }),
  );
  const records = await pipeline.approvals.listApprovals({ runId: runtime.runId });
  const open = records.findLast(
    (record) =>
      record.tool === call.function.name &&
      record.argumentsHash === hash &&
      record.consumedAt === undefined &&
      record.status !== 'denied',
  );
  return open?.toolCallId ?? fresh;
}

async function toCallToolResult(
  report: ToolCallReport,
  { pipeline, texts }: { pipeline: McpToolPipeline; texts: ReturnType<typeof mcpServerTexts> },
): Promise<CallToolResult> {
  switch (report.kind) {
    case 'done': {
      const { outcome, content } = report;
      if (!outcome.ok) {
        return {
          isError: true,
          content: [{ type: 'text', text: content }],
          structuredContent: { error: outcome.error },
        };
      }
      // The whole data goes along only when the text is not truncated: a long result stays as short as the model's.
      // A call that already ran says so in its text; its earlier result goes along whole, as it did the first time.
      const whole = isRecord(outcome.data) && (report.replayed === true || content === JSON.stringify(outcome.data));
      return { content: [{ type: 'text', text: content }], ...(whole ? { structuredContent: outcome.data } : {}) };
    }
    case 'pending_approval': {
      const record = await pipeline.approvals.getApproval(report.approvalId);
      const text = texts.awaitingApproval({ tool: report.tool, approvalId: report.approvalId, reason: record?.reason });
      return {
        content: [{ type: 'text', text }],
        structuredContent: { status: 'awaiting_approval', approvalId: report.approvalId, tool: report.tool },
      };
    }
    case 'aborted':
      return { isError: true, content: [{ type: 'text', text: texts.aborted(report) }] };
    case 'held':
      // Only a turn of several calls holds one behind another; an MCP call is alone.
      return { isError: true, content: [{ type: 'text', text: texts.aborted({ tool: report.tool, started: false }) }] };
  }
}
