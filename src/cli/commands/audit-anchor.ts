import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigurationError } from '../../errors/configuration-error.js';
import { type AuditAnchor, auditAnchor } from '../../gate/audit-anchor.js';
import { checkAuditKey } from '../../gate/audit-key.js';
import type { CommandResult } from '../cli-output.js';
import { auditAnchorUsage } from '../command-usage.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation, storeOptions } from './store-location.js';

/**
 * `arbiter audit anchor [--out FILE]`: verifies the log, then exports the
 * store's id, when its chain began and the heads of all its chains as one
 * signed JSON line (`AuditAnchor`), to stdout or FILE (never overwritten).
 * A log with findings gets no anchor: it would bless them. The key must be
 * 32 characters or more (`checkAuditKey`).
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
  try {
    checkAuditKey(key);
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
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
      let anchor: AuditAnchor;
      try {
        anchor = auditAnchor({ report, at: now(), key });
      } catch (error) {
        if (!ConfigurationError.isInstance(error)) throw error;
        return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
      }
      const line = JSON.stringify(anchor);
      if (values.out === undefined) return { exitCode: 0, stdout: [line], stderr: [] };
      const unwritten = writeAnchor({ file: values.out, line });
      if (unwritten !== undefined) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${unwritten}`] };
      return {
        exitCode: 0,
        stdout: [`anchor of ${report.rows} rows, ${report.chains.length} chains written to ${values.out}`],
        stderr: [],
      };
    },
  });
}

/** Writes the anchor to `file`, never over another; why not, in one line naming the path, or undefined. */
function writeAnchor({ file, line }: { file: string; line: string }): string | undefined {
  try {
    writeFileSync(file, `${line}\n`, { flag: 'wx' });
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return `cannot write the anchor to ${file}: the folder ${dirname(resolve(file))} does not exist (create it first)`;
    }
    if (code === 'EEXIST')
      return `cannot write the anchor to ${file}: it exists already (an anchor is never overwritten)`;
    if (code === 'EACCES' || code === 'EPERM') return `cannot write the anchor to ${file}: permission denied`;
    if (code === 'EISDIR') return `cannot write the anchor to ${file}: it is a folder`;
    return `cannot write the anchor to ${file}: ${(error as Error).message}`;
  }
}
