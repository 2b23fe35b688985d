import { describe, expect, it } from 'vitest';
import type { EventProjector } from '../events/create-event-projector.js';
import { RunRegistry } from './run-registry.js';

const registry = (made: string[] = []) =>
  new RunRegistry({
    projector: (locale) => {
      made.push(locale);
      return ((event: unknown) => event) as unknown as EventProjector;
    },
  });

describe('RunRegistry', () => {
  it('opens the stream of an expected run at its begin, resolving its start with the id, once', () => {
    const runs = registry();
    const resolved: string[] = [];
    runs.expect('run-1', { sessionId: 's1', locale: 'zh-CN', resolve: (runId) => resolved.push(runId) });
    expect(runs.has('run-1')).toBe(false);
    expect(runs.begin('run-2')).toBeUndefined();
    expect(runs.begin('run-1')).toEqual({ sessionId: 's1', locale: 'zh-CN', seq: 0 });
    expect(resolved).toEqual(['run-1']);
    expect(runs.has('run-1')).toBe(true);
    expect(runs.begin('run-1')).toBeUndefined();
    runs.close('run-1');
    expect(runs.stream('run-1')).toBeUndefined();
  });

  it('does not begin a run whose start was forgotten; a resumed run continues its seq', () => {
    const runs = registry();
    runs.expect('run-1', { sessionId: 's1', locale: 'en', resolve: () => {} });
    runs.forget('run-1');
    expect(runs.begin('run-1')).toBeUndefined();
    const stream = runs.open('run-2', { sessionId: 's2', locale: 'en', seq: 7 });
    stream.seq += 1;
    expect(runs.stream('run-2')?.seq).toBe(8);
  });

  it('makes one projector per language', () => {
    const made: string[] = [];
    const runs = registry(made);
    expect(runs.projector('en')).toBe(runs.projector('en'));
    runs.projector('zh-CN');
    expect(made).toEqual(['en', 'zh-CN']);
  });
});
