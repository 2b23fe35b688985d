import { describe, expect, it } from 'vitest';
import { ApprovalResolutionError } from './approval-resolution-error.js';
import { GateRuleError } from './gate-rule-error.js';
import { InputFileError } from './input-file-error.js';
import { InvalidForkPointError } from './invalid-fork-point-error.js';
import { SessionNotFoundError } from './session-not-found-error.js';
import { UndoError } from './undo-error.js';

describe('messages composed from typed fields', () => {
  it('UndoError names the call and tool for each failure', () => {
    const toolCallId = 'call_3';
    const toolName = 'apply_refund';
    expect(
      [
        new UndoError({ toolCallId, failure: 'not_found' }),
        new UndoError({ toolCallId, failure: 'not_found', runCount: 2 }),
        new UndoError({ toolCallId, failure: 'not_executed' }),
        new UndoError({ toolCallId, failure: 'already_undone', toolName }),
        new UndoError({ toolCallId, failure: 'unknown_tool', toolName }),
        new UndoError({ toolCallId, failure: 'not_reversible', toolName, sideEffect: 'irreversible' }),
        new UndoError({ toolCallId, failure: 'no_undo', toolName }),
        new UndoError({ toolCallId, failure: 'no_result', toolName }),
        new UndoError({ toolCallId, failure: 'arguments_mismatch', toolName }),
        new UndoError({ toolCallId, failure: 'undo_failed', toolName, cause: new Error('gateway down') }),
      ].map((error) => `${error.failure} (${error.toolName ?? '-'}): ${error.message}`),
    ).toMatchInlineSnapshot(`
      [
        "not_found (-): no audited tool call call_3",
        "not_found (-): tool call call_3 appears in 2 runs; name the run",
        "not_executed (-): tool call call_3 did not run",
        "already_undone (apply_refund): tool call call_3 (apply_refund) was already undone",
        "unknown_tool (apply_refund): tool apply_refund is not registered here",
        "not_reversible (apply_refund): apply_refund is irreversible, not reversible",
        "no_undo (apply_refund): apply_refund has no undo",
        "no_result (apply_refund): the arguments or result of call_3 were not kept in a session",
        "arguments_mismatch (apply_refund): the stored arguments of call_3 do not match what was audited",
        "undo_failed (apply_refund): undoing call_3 (apply_refund) failed",
      ]
    `);
  });

  it('ApprovalResolutionError names the approval, and the status once decided', () => {
    const approvalId = 'a1';
    const errors = [
      new ApprovalResolutionError({ approvalId, failure: 'not_found' }),
      new ApprovalResolutionError({ approvalId, failure: 'missing_approver' }),
      new ApprovalResolutionError({ approvalId, failure: 'already_decided', status: 'approved', approver: 'li.wei' }),
      new ApprovalResolutionError({ approvalId, failure: 'already_decided', status: 'denied', approver: null }),
      new ApprovalResolutionError({ approvalId, failure: 'expired', expiresAt: Date.UTC(2026, 11, 1, 12) }),
    ];
    expect(errors.map((error) => `${error.failure} (${error.status ?? '-'}): ${error.message}`)).toMatchInlineSnapshot(`
      [
        "not_found (-): no approval a1 exists",
        "missing_approver (-): a decision on approval a1 must name the approver",
        "already_decided (approved): approval a1 was already decided: approved by li.wei",
        "already_decided (denied): approval a1 was already decided: denied",
        "expired (denied): approval a1 expired at 2026-12-01T12:00:00.000Z and was denied",
      ]
    `);
  });

  it('InvalidForkPointError says why and where to fork instead', () => {
    expect([
      new InvalidForkPointError({ sessionId: 's1', atMessage: 3, messageCount: 6, nearestBefore: 1, nearestAfter: 4 })
        .message,
      new InvalidForkPointError({ sessionId: 's1', atMessage: 9, messageCount: 6, nearestBefore: 6 }).message,
      new InvalidForkPointError({ sessionId: 's1', atMessage: 1, messageCount: 2 }).message,
    ]).toMatchInlineSnapshot(`
      [
        "cannot fork session s1 at message 3: message 3 would separate an assistant message's tool calls from their tool messages; fork at 1 or 4 instead",
        "cannot fork session s1 at message 9: it has 6 messages, so --at must be 0 to 6; fork at 6 instead",
        "cannot fork session s1 at message 1: message 1 would separate an assistant message's tool calls from their tool messages",
      ]
    `);
  });

  it('InputFileError, GateRuleError and SessionNotFoundError put the name first', () => {
    expect([
      new InputFileError({ file: 'calls.jsonl', line: 3, problem: 'not valid JSON' }).message,
      new InputFileError({ file: 'auth.json', problem: 'cannot be read' }).message,
      new GateRuleError({ ruleIndex: 0, problem: 'has no message' }).message,
      new GateRuleError({ ruleIndex: 1, ruleName: 'refund cap', problem: 'names no tool' }).message,
      new SessionNotFoundError({ sessionId: 's1' }).message,
    ]).toMatchInlineSnapshot(`
      [
        "calls.jsonl:3: not valid JSON",
        "auth.json: cannot be read",
        "gate rule 1 has no message",
        "gate rule 2 ("refund cap") names no tool",
        "session s1 does not exist",
      ]
    `);
  });
});
