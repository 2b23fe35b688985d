import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../loop/run-agent.js';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store.js';
import {
  callsWithIds,
  type GateHarness,
  openGateHarness,
  statelessModel,
  toolMessage,
} from './test-support/gate-harness.js';
import { countPayments } from './test-support/payment-tools.js';

const payment = { account: 'AC2002', amount_cents: 5_000, reference: 'INV-5' };

function pay(
  harness: GateHarness,
  args: Record<string, unknown> = payment,
  options: { idempotency?: SqliteIdempotencyStore } = {},
) {
  return runAgent({
    ...harness.runOptions,
    ...options,
    model: statelessModel([callsWithIds(['call_pay', 'send_payment', args])]),
    messages: [{ role: 'user', content: 'Pay INV-5' }],
  });
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('SqliteIdempotencyStore', () => {
  it('returns the first outcome without executing again when the key was completed', async () => {
    const harness = openGateHarness();
    const first = await pay(harness);
    const second = await pay(harness);
    expect(countPayments(harness.store.database)).toBe(1);
    expect(toolMessage(second.messages, 'call_pay')).toBe(toolMessage(first.messages, 'call_pay'));
    expect(harness.audit.listAudit().map((entry) => entry.outcome)).toEqual(['ok', 'replayed:ok']);
  });

  it('frees the key when the tool refused and changed nothing, so a later call is not answered from a stale refusal', async () => {
    const harness = openGateHarness();
    const missing = { ...payment, account: 'AC0000' };
    await pay(harness, missing);
    const keys = harness.store.database.prepare('SELECT COUNT(*) AS count FROM idempotency_keys').get() as {
      count: number;
    };
    expect(keys.count).toBe(0);
    await pay(harness, missing);
    expect(harness.audit.listAudit().map((entry) => entry.outcome)).toEqual(['account_not_found', 'account_not_found']);
  });

  it('executes once when identical calls of this process overlap, and gives every caller the same result', async () => {
    const harness = openGateHarness({ onExecute: () => new Promise((resolve) => setTimeout(resolve, 20)) });
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(harness)));
    expect(countPayments(harness.store.database)).toBe(1);
    expect(new Set(results.map((result) => toolMessage(result.messages, 'call_pay'))).size).toBe(1);
    const outcomes = harness.audit.listAudit().map((entry) => entry.outcome);
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'replayed:ok')).toHaveLength(19);
  });

  it('answers outcome_unknown, without executing, for a key another process claimed and never completed', async () => {
    const harness = openGateHarness();
    harness.store.database
      .prepare(
        `INSERT INTO idempotency_keys (key, status, tool, run_id, tool_call_id, owner, claimed_at)
         VALUES ('payment:AC2002:5000:INV-5', 'claimed', 'send_payment', 'run-0', 'call_0', '99999:feedface', ?)`,
      )
      .run(Date.now());
    const result = await pay(harness);
    expect(toolMessage(result.messages, 'call_pay')).toMatchInlineSnapshot(
      `"Not run: an earlier attempt of exactly this send_payment call was interrupted and its outcome is unknown. It will not be repeated automatically; tell the user a person will check it."`,
    );
    expect(countPayments(harness.store.database)).toBe(0);
  });

  it('stops waiting for a call of this process that has run longer than the stale threshold', async () => {
    let release: () => void = () => {};
    const harness = openGateHarness({ onExecute: () => new Promise<void>((resolve) => (release = resolve)) });
    const impatient = new SqliteIdempotencyStore({ database: harness.store.database, staleAfterMs: 30 });
    const first = pay(harness);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await pay(harness, payment, { idempotency: impatient });
    expect(second.messages.at(-2)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('outcome is unknown'),
    });
    release();
    await first;
    expect(countPayments(harness.store.database)).toBe(1);
  });

  it('leaves outcome_unknown when the process executing the call is killed, and a new process does not execute it again', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-idempotency-'));
    directories.push(directory);
    const path = join(directory, 'arbiter.db');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/gate/test-support/idempotency-child.ts', path], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('executing')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`child exited (${code}) before executing: ${stderr}`)));
    });
    child.kill('SIGKILL');
    await exited;

    const executed: unknown[] = [];
    const harness = openGateHarness({ path, onExecute: (args) => void executed.push(args) });
    try {
      const row = harness.store.database.prepare('SELECT status, owner FROM idempotency_keys').get() as {
        status: string;
        owner: string;
      };
      expect(row.status).toBe('claimed');
      expect(row.owner.startsWith(`${child.pid}:`)).toBe(true);
      const result = await pay(harness);
      expect(toolMessage(result.messages, 'call_pay')).toContain('its outcome is unknown');
      expect(executed).toEqual([]);
      expect(countPayments(harness.store.database)).toBe(0);
      expect(harness.audit.listAudit().map((entry) => entry.outcome)).toEqual(['outcome_unknown']);
    } finally {
      harness.store.close();
    }
  });
});
