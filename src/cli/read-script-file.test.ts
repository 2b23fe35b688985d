import { describe, expect, it } from 'vitest';
import { scriptProblem } from './read-script-file.js';

const script = (step: unknown) => ({ name: 'refunds', turns: [{ steps: [step] }] });

describe('scriptProblem: alreadyDone', () => {
  it('accepts alreadyDone beside say, and names it when it is no string or beside a call', () => {
    expect(scriptProblem(script({ say: 'Done.', alreadyDone: 'Done earlier.' }))).toBeUndefined();
    expect(scriptProblem(script({ say: 'Done.', alreadyDone: 3 }))).toBe(
      'turn 1, step 1 (turns[0].steps[0]): "alreadyDone" must be a string',
    );
    expect(scriptProblem(script({ call: { name: 'apply_refund', arguments: {} }, alreadyDone: 'x' }))).toBe(
      'turn 1, step 1 (turns[0].steps[0]): "alreadyDone" goes with "say", not with "call"',
    );
  });
});
