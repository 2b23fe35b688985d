import { UsageError } from '../errors/usage-error.js';

/** What the demo does when the large refund waits for a person. */
export type DemoApproval = 'approve' | 'reject' | 'ask' | 'leave_pending';

/**
 * Picks the demo's approval mode from the command line: `--reject`,
 * `--approve` or `APPROVE=1`, else asking on a terminal, else leaving the
 * approval pending.
 *
 * @example
 * demoApprovalMode({ approve: false, reject: false, env: process.env, isTTY: process.stdin.isTTY === true });
 */
export function demoApprovalMode({
  approve,
  reject,
  env,
  isTTY,
}: {
  approve: boolean;
  reject: boolean;
  env: Readonly<Record<string, string | undefined>>;
  isTTY: boolean;
}): DemoApproval {
  if (approve && reject) throw new UsageError({ message: '--approve and --reject exclude each other' });
  if (reject) return 'reject';
  if (approve || env['APPROVE'] === '1') return 'approve';
  return isTTY ? 'ask' : 'leave_pending';
}
