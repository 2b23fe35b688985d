/**
 * Reconciliation of unknown outcomes under SIGKILL. A driver process asks
 * the demo shop for one refund (`refund-crash-driver.ts`) and kills itself
 * at a point of the refund path; a fresh process resumes the session. With
 * `apply_refund`'s `reconcile`, every point ends with exactly one refund and
 * the model told its number; without it (arbiter before reconciliation), a
 * kill between the claim and the recorded result leaves "outcome unknown"
 * for a person, with no refund made (after-claim) or one made and never told.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDriver, runTrial } from './crash-harness.js';

const source = join(import.meta.dirname, 'refund-crash-driver.ts');
const root = mkdtempSync(join(tmpdir(), 'arbiter-refund-crash-'));
const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', `arbiter-refund-crash-${process.pid}`);
let driver: { command: string; args: string[] };

beforeAll(async () => {
  mkdirSync(cache, { recursive: true });
  driver = await prepareDriver(cache, source);
}, 60_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

const points = ['after-claim', 'after-effect', 'after-completed', 'after-journal'] as const;

/** Kills a first process at `point`, resumes in a second; returns the log, the refunds made and the audit. */
async function crashAndResume(name: string, point: string, extraArgs: readonly string[] = []) {
  const directory = join(root, name);
  const crashed = await runTrial({
    directory,
    driver,
    extraArgs: [...extraArgs, '--crash-at', point],
    firstProcessOnly: true,
  });
  expect(crashed.kills).toBe(1);
  const resumed = await runTrial({ directory, driver, extraArgs });
  expect(resumed.kills).toBe(0);
  const shop = new Database(join(directory, 'shop.db'), { readonly: true });
  const refunds = shop
    .prepare("SELECT refund_no FROM refunds WHERE idempotency_key = 'refund:SO20260901:2000'")
    .all() as { refund_no: string }[];
  shop.close();
  const arbiter = new Database(join(directory, 'arbiter.db'), { readonly: true });
  const audit = (
    arbiter.prepare("SELECT outcome FROM audit_log WHERE tool = 'apply_refund' ORDER BY rowid").all() as {
      outcome: string;
    }[]
  ).map((row) => row.outcome);
  arbiter.close();
  const log = readFileSync(join(directory, 'log.txt'), 'utf8').split('\n');
  const result = JSON.parse(log.findLast((line) => line.startsWith('result '))?.slice(7) ?? '{}') as {
    stopReason?: string;
    text?: string;
  };
  return { log, refunds, audit, result };
}

describe('a refund killed at each point of its path and resumed by a new process', () => {
  it.each(points)(
    'ends with exactly one refund, told to the model, when killed %s',
    async (point) => {
      const { log, refunds, audit, result } = await crashAndResume(point, point);
      expect(log).toContain(`crash ${point}`);
      expect(refunds).toHaveLength(1);
      expect(result.stopReason).toBe('completed');
      expect(result.text).toContain(refunds[0]?.refund_no);
      // Never twice: killed after the claim it runs once, on resume; killed later it ran once, before the kill.
      expect(log.filter((line) => line === 'execute apply_refund')).toHaveLength(1);
      if (point === 'after-claim') {
        // Reconciled as not made: the key was re-taken and the refund made once, by the resumed run.
        expect(log).toContain('reconciled retake claimed');
      }
      if (point === 'after-effect') {
        // Reconciled as made: its result completed from the shop's refund, audited as reconciled.
        expect(log).toContain('reconciled completed completed');
        expect(audit).toContain('reconciled:ok');
      }
    },
    60_000,
  );

  it.each(['after-claim', 'after-effect'])(
    'leaves the outcome unknown without reconcile, killed %s (arbiter before reconciliation)',
    async (point) => {
      const { refunds, result } = await crashAndResume(`without-${point}`, point, ['--no-reconcile']);
      expect(refunds).toHaveLength(point === 'after-claim' ? 0 : 1);
      expect(result.text).toContain('outcome is unknown');
    },
    60_000,
  );
});
