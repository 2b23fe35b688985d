import { describe, expect, it } from 'vitest';
import type { RunRecord, RuntimeStore } from '../runtime-store.js';
import { type CreateBackend, openFreshBackends } from './contract-backend.js';

const record: RunRecord = {
  runId: 'run-1',
  sessionId: 'session-1',
  model: 'scripted:demo',
  startedAt: 1_000,
  endedAt: 2_000,
  stopReason: 'completed',
  steps: 3,
  inputTokens: 120,
  outputTokens: 40,
  errorCode: undefined,
};

/**
 * The behaviour every `RuntimeStore` must have: finished runs come back
 * newest first, by session, bounded, and saving a run again replaces it.
 *
 * @example
 * describeRuntimeStoreContract('SqliteStore', ({ now }) => openSqliteBackend({ path: ':memory:', now }));
 */
export function describeRuntimeStoreContract(
  name: string,
  createBackend: CreateBackend<{ readonly runtime: RuntimeStore }>,
): void {
  describe(`${name} (RuntimeStore contract)`, () => {
    const open = openFreshBackends(createBackend);

    it('has run its migrations when opened', async () => {
      const { backend } = await open();
      expect(backend.runtime.schemaVersion).toBeGreaterThan(0);
      expect(await backend.runtime.listRuns()).toEqual([]);
    });

    it('keeps runs and lists them newest first, by session and bounded', async () => {
      const { backend } = await open();
      const { runtime } = backend;
      await runtime.saveRun(record);
      await runtime.saveRun({ ...record, runId: 'run-2', sessionId: 'session-2', startedAt: 3_000 });
      await runtime.saveRun({
        ...record,
        runId: 'run-3',
        sessionId: undefined,
        startedAt: 2_000,
        errorCode: 'model_error',
      });
      expect(await runtime.listRuns({ sessionId: 'session-1' })).toEqual([record]);
      expect((await runtime.listRuns()).map((run) => run.runId)).toEqual(['run-2', 'run-3', 'run-1']);
      expect((await runtime.listRuns({ limit: 1 })).map((run) => run.runId)).toEqual(['run-2']);
      expect(await runtime.listRuns({ sessionId: 'missing' })).toEqual([]);
      expect((await runtime.listRuns({ limit: 3 }))[1]).toMatchObject({
        sessionId: undefined,
        errorCode: 'model_error',
      });
    });

    it('replaces a run saved twice instead of keeping two', async () => {
      const { backend } = await open();
      await backend.runtime.saveRun(record);
      await backend.runtime.saveRun({ ...record, steps: 4, stopReason: 'max_steps' });
      expect(await backend.runtime.listRuns()).toEqual([{ ...record, steps: 4, stopReason: 'max_steps' }]);
    });
  });
}
