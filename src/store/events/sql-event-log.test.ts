import { describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../../events/external-event.js';
import type { SqlProgram, SqlStep } from '../sql/sql-program.js';
import { appendAll } from './sql-event-log.js';

/** The program `appendAll` runs in its transaction, stepped as SQLite's port steps it. */
function transactionProgram(events: readonly ExternalEvent[]): SqlProgram<unknown> {
  const program = appendAll(events);
  let step = program.next();
  while (step.done !== true) {
    const asked: SqlStep = step.value;
    if (asked.kind === 'transaction') return asked.work();
    step = program.next(asked.kind === 'dialect' ? 'sqlite' : undefined);
  }
  throw new Error('appendAll ran no transaction');
}

describe('appendAll', () => {
  it('writes several events with programs of one generator function, not of one made per call', () => {
    const events = (runId: string): ExternalEvent[] => [
      { type: 'run:start', runId, seq: 1, at: 1 },
      { type: 'run:start', runId, seq: 2, at: 2 },
    ];
    const first = transactionProgram(events('r1'));
    const second = transactionProgram(events('r2'));
    expect(Object.getPrototypeOf(first)).toBe(Object.getPrototypeOf(second));
  });
});
