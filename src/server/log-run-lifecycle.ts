import type { AgentEvent } from '../events/agent-event.js';
import type { ServerLogEntry } from './server-log.js';

/**
 * The server log's line for a run's beginning and end and for an approval
 * asked or decided, or undefined for any other event: what an operator
 * follows on standard error (`run_started`, `run_ended` with its stop
 * reason, `run_failed` with its code, `approval_required`,
 * `approval_decided`). Only ids, the tool's name, the rule and the
 * decision: never arguments, texts or the model's output.
 *
 * @example
 * bus.subscribe((event) => {
 *   const entry = runLifecycleEntry(event);
 *   if (entry !== undefined) logger(entry);
 * });
 */
export function runLifecycleEntry(event: AgentEvent): ServerLogEntry | undefined {
  const { runId } = event;
  switch (event.type) {
    case 'run:start':
      return { level: 'info', event: 'run_started', runId, sessionId: event.sessionId };
    case 'run:end':
      return {
        level: 'info',
        event: 'run_ended',
        runId,
        stopReason: event.stopReason,
        steps: event.steps,
        durationMs: Math.round(event.durationMs),
      };
    case 'run:error':
      return { level: 'error', event: 'run_failed', runId, code: event.code, steps: event.steps };
    case 'approval:required':
      return {
        level: 'info',
        event: 'approval_required',
        runId,
        approvalId: event.approvalId,
        toolCallId: event.toolCallId,
        tool: event.tool,
        rule: event.rule,
      };
    case 'approval:resolved':
      return {
        level: 'info',
        event: 'approval_decided',
        runId,
        approvalId: event.approvalId,
        toolCallId: event.toolCallId,
        tool: event.tool,
        decision: event.decision,
        ...(event.approver === undefined ? {} : { approver: event.approver }),
      };
    default:
      return undefined;
  }
}
