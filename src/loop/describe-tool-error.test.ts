import { describe, expect, it } from 'vitest';
import { describeFullError } from './describe-tool-error.js';

describe('describeFullError', () => {
  it('is the whole message', () => {
    expect(describeFullError({ code: 'x', retryable: true, message: 'The whole message.' })).toBe('The whole message.');
  });
});
