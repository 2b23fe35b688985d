/**
 * Wrong names do not fail silently: the real `arbiter` with a mistyped
 * `ARBITER_*` variable, or another tool's `DATABASE_URL`, says which
 * variable it reads, and never prints the value.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArbiter } from './support/run-arbiter.js';

describe('the environment arbiter is started in', () => {
  const empty = mkdtempSync(join(tmpdir(), 'arbiter-environment-'));

  it('warns of ARBITER_STORE and names ARBITER_STORE_URL, without the URL', async () => {
    const ran = await runArbiter(['approvals', '--data-dir', empty], { ARBITER_STORE: 'postgres://u:hunter2@h/db' });
    expect(ran.stderr.split('\n')[0]).toBe(
      'arbiter: warning: ARBITER_STORE is not a variable arbiter reads (did you mean ARBITER_STORE_URL?); it is ignored',
    );
    expect(ran.stderr).not.toContain('hunter2');
  });

  it('names --store and ARBITER_STORE_URL when DATABASE_URL is set and no store is found', async () => {
    const ran = await runArbiter(['approvals', '--data-dir', empty], { DATABASE_URL: 'postgres://u:hunter2@h/db' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      `arbiter: no arbiter store at ${join(empty, 'arbiter.db')} (DATABASE_URL is set, but arbiter reads ARBITER_STORE_URL or --store URL)\n`,
    );
  });
});
