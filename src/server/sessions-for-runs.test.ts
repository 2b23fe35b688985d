import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSession } from '../loop/run-session.js';
import { ScriptedModel } from '../models/scripted-model.js';
import type { EndRunRequest } from '../store/session-store.js';
import { openSqliteBackend, type SqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { sessionsForRuns } from './sessions-for-runs.js';

const model = () => new ScriptedModel({ script: { name: 'answer', turns: [{ steps: [{ say: 'Shipped.' }] }] } });

describe('sessionsForRuns', () => {
  let backend: SqliteBackend | undefined;
  afterEach(() => {
    backend?.close();
    backend = undefined;
  });

  it('ends a server run through its own endRun: the journal never ends it with the answer', async () => {
    backend = openSqliteBackend({ path: ':memory:' });
    const { sessions } = backend;
    const session = await sessions.create();
    const offered: EndRunRequest[] = [];
    const beforeEnd = vi.fn(async () => {});
    const wrapped = sessionsForRuns({
      sessions,
      beforeEnd,
      offerEnd: (request) => {
        offered.push(request);
        return undefined;
      },
    });
    const result = await runSession({
      sessions: wrapped,
      sessionId: session.id,
      userMessage: 'Where is my order?',
      model: model(),
      tools: new ToolRegistry(),
    });
    expect(result.stopReason).toBe('completed');
    expect(offered).toMatchObject([{ sessionId: session.id, runId: result.runId, status: 'idle' }]);
    expect(beforeEnd).toHaveBeenCalledTimes(1);
    expect(await sessions.load(session.id)).toMatchObject({ status: 'idle', activeRun: undefined });
  });

  it('lets a plain store end the run with its answer: runSession writes no endRun of its own', async () => {
    backend = openSqliteBackend({ path: ':memory:' });
    const { sessions } = backend;
    const session = await sessions.create();
    const endRun = vi.spyOn(sessions, 'endRun');
    const result = await runSession({
      sessions,
      sessionId: session.id,
      userMessage: 'Where is my order?',
      model: model(),
      tools: new ToolRegistry(),
    });
    expect(result.stopReason).toBe('completed');
    expect(endRun).not.toHaveBeenCalled();
    const stored = await sessions.load(session.id);
    expect(stored).toMatchObject({ status: 'idle', activeRun: undefined, stepCount: 1 });
    expect(stored?.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });
});
