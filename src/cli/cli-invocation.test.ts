import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cliInvocation } from './cli-invocation.js';

describe('cliInvocation', () => {
  it('prints the checkout form in the checkout, the installed form anywhere else', () => {
    expect(cliInvocation({ cwd: process.cwd() })).toBe('npm run arbiter --');
    expect(cliInvocation({ cwd: tmpdir() })).toBe('npx arbiter');
  });
});
