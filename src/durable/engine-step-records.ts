import type { Awaitable } from '../core/awaitable.js';
import { EngineReplayError } from '../errors/engine-replay-error.js';
import type { DurableRunInput } from './run-in-engine.js';

/**
 * One entry of a run's record, in the order the run reached it: its input,
 * a step's result (a model turn, a gated tool execution, the run recorded or
 * finished), a clock read, a new id, a signal waited for (`null`: the
 * deadline passed first). Plain JSON.
 */
export type RecordedEntry =
  | { readonly kind: 'input'; readonly value: DurableRunInput }
  | { readonly kind: 'step'; readonly name: string; readonly value: unknown }
  | { readonly kind: 'now'; readonly value: number }
  | { readonly kind: 'id'; readonly value: string }
  | { readonly kind: 'signal'; readonly topic: string; readonly value: unknown };

/**
 * Where an engine whose workflow cannot hold arbiter's payloads (Temporal:
 * every activity's input and result is written into the workflow's history)
 * keeps a run's record in arbiter's store: the engine's history carries only
 * the position of each entry, the store carries the messages and tool
 * results. An entry, once written at a position, stays: a second writer of
 * the same position (a retried activity whose first attempt got that far)
 * gets the first one's entry back.
 *
 * @example
 * const records = postgresEngineStepRecords({ pool: backend.pool, schema: 'arbiter' });
 * const entries = await records.read('run-1');
 */
export interface EngineStepRecords {
  /** The run's entries, positions 0, 1, 2, … without a hole. */
  read(runId: string): Awaitable<readonly RecordedEntry[]>;
  /** Writes `entry` at `position` unless one is there; returns the entry recorded there. */
  write(request: { runId: string; position: number; entry: RecordedEntry }): Awaitable<RecordedEntry>;
}

/**
 * Records in memory, for one process (a test, a bench): nothing survives it.
 *
 * @example
 * const records = memoryEngineStepRecords();
 */
export function memoryEngineStepRecords(): EngineStepRecords {
  const runs = new Map<string, RecordedEntry[]>();
  return {
    read: (runId) => [...(runs.get(runId) ?? [])],
    write: ({ runId, position, entry }) => {
      const entries = runs.get(runId) ?? [];
      runs.set(runId, entries);
      const there = entries[position];
      if (there !== undefined) return there;
      if (position !== entries.length)
        throw new EngineReplayError({
          runId,
          position,
          recorded: 'nothing',
          asked: `an entry after ${entries.length}`,
        });
      entries.push(entry);
      return entry;
    },
  };
}
