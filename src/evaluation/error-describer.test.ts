import { describe, expect, it } from 'vitest';
import { errorDescriber } from './error-describer.js';

const error = {
  code: 'invalid_arguments',
  retryable: true,
  message: 'The whole message.',
  issues: [{ path: '$.order_id', code: 'pattern', message: '…' }],
};

describe('errorDescriber', () => {
  it('words an error in each style of the message experiment', () => {
    expect(errorDescriber('full')(error, 'en')).toBe('The whole message.');
    expect(errorDescriber('field_only')(error, 'en')).toBe('order_id has the wrong format.');
    expect(errorDescriber('field_only')({ ...error, issues: [] }, 'zh-CN')).toBe('调用失败（invalid_arguments）。');
    expect(errorDescriber('vague')(error, 'en')).toBe('Tool execution failed');
  });
});
