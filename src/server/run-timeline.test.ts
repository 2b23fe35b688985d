import { describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import type { ApprovalRecord } from '../gate/approval-record.js';
import type { AuditRecord } from '../store/audit-rows.js';
import { runTimeline, storedCalls } from './run-timeline.js';

const runId = 'run_1';
let seq = 0;
function event(body: Record<string, unknown>, at: number): ExternalEvent {
  seq += 1;
  return { runId, seq, at, ...body } as unknown as ExternalEvent;
}

function auditRow(fields: Partial<AuditRecord> & Pick<AuditRecord, 'toolCallId' | 'tool' | 'outcome'>): AuditRecord {
  return {
    auditId: 1,
    at: 0,
    sessionId: 's1',
    runId,
    step: 1,
    sideEffect: 'irreversible',
    argumentsHash: 'hash',
    arguments: {},
    decision: 'allowed',
    rule: undefined,
    approver: undefined,
    durationMs: 3,
    ...fields,
  };
}

describe('runTimeline', () => {
  it('shows a corrected call, the approval that let the second through, and a replayed call, across a resumed run', () => {
    seq = 0;
    const events = [
      event({ type: 'run:start' }, 1000),
      event({ type: 'model:delta', step: 1, text: 'Let me ' }, 1100),
      event({ type: 'model:delta', step: 1, text: 'check.' }, 1150),
      event(
        { type: 'model:end', step: 1, toolCalls: 1, usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 } },
        1200,
      ),
      event({ type: 'tool:proposed', step: 1, toolCallId: 'c1', tool: 'apply_refund', status: 'proposed' }, 1210),
      event(
        {
          type: 'tool:error',
          step: 1,
          toolCallId: 'c1',
          tool: 'apply_refund',
          status: 'failed',
          stage: 'validation',
          code: 'wrong_type',
          retryable: true,
          text: 'Fixing…',
        },
        1220,
      ),
      event(
        { type: 'model:end', step: 2, toolCalls: 2, usage: { inputTokens: 20, outputTokens: 6, totalTokens: 26 } },
        1500,
      ),
      event({ type: 'tool:proposed', step: 2, toolCallId: 'c2', tool: 'apply_refund', status: 'proposed' }, 1510),
      event(
        {
          type: 'approval:required',
          step: 2,
          toolCallId: 'c2',
          approvalId: 'ap_1',
          tool: 'apply_refund',
          status: 'awaiting_approval',
          arguments: {},
          reason: 'big',
          text: '…',
        },
        1520,
      ),
      event({ type: 'tool:proposed', step: 2, toolCallId: 'c3', tool: 'query_order', status: 'proposed' }, 1530),
      event({ type: 'tool:end', step: 2, toolCallId: 'c3', tool: 'query_order', status: 'done', durationMs: 2 }, 1540),
      event(
        {
          type: 'run:end',
          stopReason: 'awaiting_approval',
          steps: 2,
          durationMs: 600,
          usage: { inputTokens: 30, outputTokens: 10, totalTokens: 40 },
        },
        1600,
      ),
      event({ type: 'run:start' }, 5000),
      event(
        {
          type: 'approval:resolved',
          toolCallId: 'c2',
          approvalId: 'ap_1',
          tool: 'apply_refund',
          status: 'approved',
          text: '…',
        },
        5010,
      ),
      event(
        { type: 'tool:start', step: 2, toolCallId: 'c2', tool: 'apply_refund', status: 'running', text: '…' },
        5020,
      ),
      event({ type: 'tool:end', step: 2, toolCallId: 'c2', tool: 'apply_refund', status: 'done', durationMs: 7 }, 5030),
      event({ type: 'model:delta', step: 3, text: 'Done.' }, 5100),
      event(
        { type: 'model:end', step: 3, toolCalls: 0, usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } },
        5200,
      ),
      event(
        {
          type: 'run:end',
          stopReason: 'completed',
          steps: 3,
          durationMs: 200,
          usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
          cost: 0.01,
        },
        5210,
      ),
    ];
    const audit = [
      auditRow({ toolCallId: 'c3', tool: 'query_order', outcome: 'replayed:ok' }),
      auditRow({
        toolCallId: 'c2',
        tool: 'apply_refund',
        outcome: 'ok',
        decision: 'approved',
        rule: 'refund_cap',
        approver: 'S9002',
      }),
    ];
    const approvals = [
      {
        approvalId: 'ap_1',
        toolCallId: 'c2',
        status: 'approved',
        approver: 'S9002',
        decisionReason: 'photo checked',
        decidedAt: 4000,
      } as unknown as ApprovalRecord,
    ];
    const calls = storedCalls({
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'apply_refund', arguments: '{"order_id":12345,"phone":"138"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'order_id: expected a string like "SO20260901"' },
      ],
      show: (_tool, args) => ({ ...args, phone: '[redacted]' }),
    });

    const steps = runTimeline({ events, audit, approvals, calls });
    expect(steps.map((step) => (step.kind === 'tool' ? `tool:${step.toolCallId}` : `${step.kind}`))).toEqual([
      'run',
      'model',
      'tool:c1',
      'model',
      'tool:c2',
      'tool:c3',
      'run',
      'run',
      'model',
      'run',
    ]);
    expect(steps[1]).toMatchObject({
      kind: 'model',
      step: 1,
      text: 'Let me check.',
      durationMs: 200,
      tokens: { input: 10, output: 4, total: 14 },
    });
    expect(steps[2]).toMatchObject({
      validation: 'failed',
      result: 'error',
      error: { stage: 'validation', code: 'wrong_type' },
      arguments: { order_id: 12345, phone: '[redacted]' },
      feedback: 'order_id: expected a string like "SO20260901"',
    });
    expect(steps[4]).toMatchObject({
      validation: 'passed',
      result: 'ok',
      gate: { decision: 'approved', rule: 'refund_cap' },
      approval: { approvalId: 'ap_1', status: 'approved', approver: 'S9002', reason: 'photo checked' },
      replayed: false,
      feedback: null,
      durationMs: 7,
    });
    expect(steps[5]).toMatchObject({ tool: 'query_order', result: 'ok', outcome: 'replayed:ok', replayed: true });
    expect(steps[8]).toMatchObject({ kind: 'model', step: 3, text: 'Done.', durationMs: 170 });
    expect(steps[9]).toMatchObject({ kind: 'run', event: 'end', stopReason: 'completed', cost: 0.01 });
  });
});
