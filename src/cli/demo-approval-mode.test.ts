import { describe, expect, it } from 'vitest';
import { demoApprovalMode } from './demo-approval-mode.js';

describe('demoApprovalMode', () => {
  it('chooses reject, approve (flag or APPROVE=1), ask on a terminal, else leave pending', () => {
    const mode = (approve: boolean, reject: boolean, env: Record<string, string>, isTTY: boolean) =>
      demoApprovalMode({ approve, reject, env, isTTY });
    expect(mode(false, true, {}, true)).toBe('reject');
    expect(mode(true, false, {}, true)).toBe('approve');
    expect(mode(false, false, { APPROVE: '1' }, false)).toBe('approve');
    expect(mode(false, false, {}, true)).toBe('ask');
    expect(mode(false, false, {}, false)).toBe('leave_pending');
    expect(() => mode(true, true, {}, false)).toThrow('--approve and --reject exclude each other');
  });
});
