import { describe, expect, it } from 'vitest';
import { SessionTask, SessionTasks } from './session-tasks.js';

describe('SessionTask', () => {
  it('goes from starting to running to finished, and queues a resume', () => {
    const task = new SessionTask({ runId: 'run-1', run: new Promise(() => {}), onFailure: () => {} });
    expect(task.phase).toBe('starting');
    task.markRunning();
    expect(task.phase).toBe('running');
    task.markFinished();
    task.markRunning();
    expect(task.phase).toBe('finished');
    expect(task.resumeQueued).toBe(false);
    task.queueResume();
    expect(task.resumeQueued).toBe(true);
  });

  it('hands a failed run to onFailure with its phase, and settles after it', async () => {
    const seen: string[] = [];
    const task = new SessionTask({
      runId: undefined,
      run: Promise.reject(new Error('boom')),
      onFailure: (failed, error) => {
        seen.push(`${failed.phase} ${(error as Error).message}`);
      },
    });
    await task.done;
    expect(seen).toEqual(['starting boom']);
  });
});

describe('SessionTasks', () => {
  it('removes a settled task before running afterSettled, and idles once none is left', async () => {
    const tasks = new SessionTasks();
    let finish = () => {};
    const run = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const task = new SessionTask({ runId: 'run-1', run, onFailure: () => {} });
    const seen: unknown[] = [];
    tasks.add('s1', task, { afterSettled: () => seen.push(tasks.get('s1')) });
    expect(tasks.get('s1')).toBe(task);
    const idle = tasks.idle();
    finish();
    await idle;
    expect(seen).toEqual([undefined]);
  });

  it("lets a session's second start wait until its first is over and a finished run settled", async () => {
    const tasks = new SessionTasks();
    const order: string[] = [];
    const over = tasks.beginStart('s1');
    let finish = () => {};
    const task = new SessionTask({
      runId: 'run-1',
      run: new Promise<void>((resolve) => {
        finish = resolve;
      }),
      onFailure: () => {},
    });
    tasks.add('s1', task, { afterSettled: () => order.push('settled') });
    const second = tasks.startable('s1').then(() => order.push('startable'));
    await Promise.resolve();
    task.markFinished();
    over();
    await Promise.resolve();
    finish();
    await second;
    expect(order).toEqual(['settled', 'startable']);
    await tasks.startable('s2');
  });
});
