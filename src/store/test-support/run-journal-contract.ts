import { describe, expect, it } from 'vitest';
import type { RecordedToolResult, RunJournal } from '../../core/run-journal.js';
import { type CreateBackend, openFreshBackends } from './contract-backend.js';

const refund: RecordedToolResult = {
  toolCallId: 'call_refund',
  tool: 'apply_refund',
  content: '{"refund_id":"RF1"}',
  outcome: { ok: true, data: { refund_id: 'RF1' } },
};

/**
 * The behaviour every `RunJournal` must have: a recorded tool result is
 * found again by its run and call (also after a lookup found nothing: a
 * journal that reads a run's results once must keep them up to date), the
 * first one recorded stays, another
 * run never finds it, and step commits of the run it was opened for go
 * through. `createBackend` returns a journal ready for `runId` (for a
 * session store: a session with that run begun).
 *
 * @example
 * describeRunJournalContract('createMemoryJournal', () => ({ journal: createMemoryJournal(), runId: 'run-1' }));
 */
export function describeRunJournalContract(
  name: string,
  createBackend: CreateBackend<{ readonly journal: RunJournal; readonly runId: string; readonly sessionId?: string }>,
): void {
  describe(`${name} (RunJournal contract)`, () => {
    const open = openFreshBackends(createBackend);

    it('finds nothing for a call whose result was never recorded', async () => {
      const { backend } = await open();
      expect(await backend.journal.findToolResult(backend.runId, 'call_unknown')).toBeUndefined();
    });

    it('finds a recorded result by its run and tool call', async () => {
      const { backend } = await open();
      await backend.journal.recordToolResult(backend.runId, refund);
      expect(await backend.journal.findToolResult(backend.runId, 'call_refund')).toEqual(refund);
    });

    it('finds a result recorded after a lookup of the same run found nothing', async () => {
      const { backend } = await open();
      expect(await backend.journal.findToolResult(backend.runId, 'call_refund')).toBeUndefined();
      await backend.journal.recordToolResult(backend.runId, refund);
      expect(await backend.journal.findToolResult(backend.runId, 'call_refund')).toEqual(refund);
      expect(await backend.journal.findToolResult('run-other', 'call_refund')).toBeUndefined();
      expect(await backend.journal.findToolResult(backend.runId, 'call_refund')).toEqual(refund);
    });

    it('keeps the first result when the same call is recorded twice, looked up in between or not', async () => {
      const { backend } = await open();
      await backend.journal.recordToolResult(backend.runId, refund);
      expect(await backend.journal.findToolResult(backend.runId, 'call_refund')).toEqual(refund);
      await backend.journal.recordToolResult(backend.runId, { ...refund, content: '{"refund_id":"RF3"}' });
      expect(await backend.journal.findToolResult(backend.runId, 'call_refund')).toEqual(refund);
    });

    it('keeps the first result when the same call is recorded twice', async () => {
      const { backend } = await open();
      await backend.journal.recordToolResult(backend.runId, refund);
      await backend.journal.recordToolResult(backend.runId, {
        ...refund,
        content: '{"refund_id":"RF2"}',
        outcome: { ok: true, data: { refund_id: 'RF2' } },
      });
      expect(await backend.journal.findToolResult(backend.runId, 'call_refund')).toEqual(refund);
    });

    it("never answers one run with another run's result for the same call id", async () => {
      const { backend } = await open();
      await backend.journal.recordToolResult(backend.runId, refund);
      expect(await backend.journal.findToolResult('run-other', 'call_refund')).toBeUndefined();
    });

    it('commits the steps of its run', async () => {
      const { backend } = await open();
      const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
      const commit = { runId: backend.runId, sessionId: backend.sessionId, usage };
      await backend.journal.commitStep({ ...commit, appended: [{ role: 'assistant', content: 'one' }], steps: 1 });
      await backend.journal.commitStep({ ...commit, appended: [], steps: 2 });
    });
  });
}
