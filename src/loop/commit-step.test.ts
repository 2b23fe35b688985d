import { describe, expect, it } from 'vitest';
import type { StepCommit } from '../core/run-journal.js';
import { createMemoryJournal } from '../core/run-journal.js';
import { commitStep } from './commit-step.js';
import { createRunProgress } from './run-progress.js';
import { testRuntime } from './test-support/test-runtime.js';

describe('commitStep', () => {
  it('appends the messages and commits them with the counters', async () => {
    const commits: StepCommit[] = [];
    const journal = { ...createMemoryJournal(), commitStep: (commit: StepCommit) => void commits.push(commit) };
    const { runtime } = testRuntime({ journal });
    const progress = createRunProgress({ messages: [] });
    progress.steps = 1;
    await commitStep(runtime, progress, [{ role: 'assistant', content: 'Hello.' }]);
    expect(progress.conversation).toEqual([{ role: 'assistant', content: 'Hello.' }]);
    expect(commits[0]).toMatchObject({
      runId: 'run_test',
      steps: 1,
      appended: [{ role: 'assistant', content: 'Hello.' }],
    });
    runtime.control.dispose();
  });
});
