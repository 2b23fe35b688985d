import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { auditAnchor } from '../../gate/audit-anchor.js';
import type { CommandResult } from '../cli-output.js';
import { auditAnchorUsage } from '../command-usage.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation, storeOptions } from './store-location.js';

/**
 * `arbiter audit anchor [--out FILE]`: verifies the log, then exports the
 * heads of all its chains as one signed JSON line (`AuditAnchor`), to stdout
 * or FILE. A log with findings gets no anchor: it would bless them.
 *
 * @example
 * const result = await auditAnchorCommand({ args: ['--out', 'anchor.json'], key: process.env.ARBITER_AUDIT_KEY });
 */
export async function auditAnchorCommand({
  args,
  key,
  now = Date.now,
  environment = process.env,
}: {
  args: readonly string[];
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The signing key (`ARBITER_AUDIT_KEY`). */
  key: string | undefined;
  now?: () => number;
}): Promise<CommandResult> {
  let values: { 'data-dir': string; store?: string | undefined; out: string | undefined };
  try {
    values = parseArgs({
      args: [...args],
      options: { ...storeOptions, out: { type: 'string' } },
    }).values as { 'data-dir': string; store?: string; out: string | undefined };
  } catch (error) {
    return { exitCode: 2, stdout: [], stderr: [`arbiter: ${(error as Error).message}`, auditAnchorUsage] };
  }
  if (key === undefined || key === '') {
    return { exitCode: 2, stdout: [], stderr: ['arbiter: set ARBITER_AUDIT_KEY: an anchor is signed with it'] };
  }
  const location = storeLocation({ values, environment });
  return withBackend({
    location,
    work: async (backend): Promise<CommandResult> => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${noStoreMessage(location)}`] };
      const report = await backend.audit.verifyChain({ key });
      if (!report.ok) {
        return {
          exitCode: 1,
          stdout: report.findings.map((finding) => finding.message),
          stderr: ['arbiter: the audit log is tampered: no anchor written (see `arbiter audit verify`)'],
        };
      }
      const line = JSON.stringify(auditAnchor({ report, at: now(), key }));
      if (values.out === undefined) return { exitCode: 0, stdout: [line], stderr: [] };
      writeFileSync(values.out, `${line}\n`, { flag: 'wx' });
      return {
        exitCode: 0,
        stdout: [`anchor of ${report.rows} rows, ${report.chains.length} chains written to ${values.out}`],
        stderr: [],
      };
    },
  });
}
