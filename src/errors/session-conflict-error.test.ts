import { describe, expect, it } from 'vitest';
import { type SessionConflict, SessionConflictError } from './session-conflict-error.js';

const message = (conflict: SessionConflict) => new SessionConflictError({ sessionId: 's1', conflict }).message;

describe('SessionConflictError', () => {
  it('composes each message from the conflict', () => {
    expect([
      message({ kind: 'run_active', activeRunId: 'run-1' }),
      message({ kind: 'run_active', activeRunId: undefined }),
      message({ kind: 'messages_from_run', activeRunId: 'run-1' }),
      message({ kind: 'run_replaced', runId: 'run-1', activeRunId: 'run-2' }),
      message({ kind: 'message_count', runId: 'run-1', messageCount: 5, expectedMessageCount: 4 }),
      message({ kind: 'version', version: 8, expectedVersion: 7 }),
      message({ kind: 'no_run_to_resume' }),
    ]).toMatchInlineSnapshot(`
      [
        "session s1 already has run run-1 in progress",
        "session s1 already has run (starting) in progress",
        "session s1 has run run-1 in progress; its messages come from that run",
        "run run-1 is no longer the active run of session s1",
        "session s1 has 5 messages, not 4: another process wrote to run run-1",
        "session s1 is at version 8, not 7",
        "session s1 has no run to resume",
      ]
    `);
  });

  it('names the run holding the session as activeRunId, and none for a version conflict', () => {
    const active = (conflict: SessionConflict) => new SessionConflictError({ sessionId: 's1', conflict }).activeRunId;
    expect(active({ kind: 'run_active', activeRunId: 'run-1' })).toBe('run-1');
    expect(active({ kind: 'run_replaced', runId: 'run-1', activeRunId: 'run-2' })).toBe('run-2');
    expect(active({ kind: 'message_count', runId: 'run-1', messageCount: 5, expectedMessageCount: 4 })).toBe('run-1');
    expect(active({ kind: 'version', version: 8, expectedVersion: 7 })).toBeUndefined();
  });
});
