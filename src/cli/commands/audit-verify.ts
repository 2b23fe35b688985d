import { parseArgs } from 'node:util';
import type { CommandResult } from '../cli-output.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation, storeOptions } from './store-location.js';

/** The usage text of `arbiter audit verify`, for the CLI's help. */
export const auditVerifyUsage = `Usage:
  arbiter audit verify [--json] [--data-dir DIR | --store URL]
      Checks purge checkpoints against ARBITER_AUDIT_KEY when it is set.`;

/**
 * `arbiter audit verify [--json]`: recomputes the audit log's hash chain
 * (one per tenant) and prints one line per finding, naming the first row
 * where each break shows: changed, inserted or deleted outside a purge (see
 * `verifyAuditChain`). With ARBITER_AUDIT_KEY set (`key`), purge
 * checkpoints must be signed with it; without, they are taken as plain
 * hashes and the summary says how many were unsigned. Then a summary line,
 * and each chain's head (record it elsewhere: rows deleted from the end of a
 * chain show only against it). Exit 0 intact, 1 findings, 2 bad usage or no
 * store.
 *
 * @example
 * const result = await auditVerifyCommand({ args: ['--data-dir', '.arbiter'], key: process.env.ARBITER_AUDIT_KEY });
 */
export async function auditVerifyCommand({
  args,
  key,
  environment = process.env,
}: {
  args: readonly string[];
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The key purge checkpoints are signed with (`ARBITER_AUDIT_KEY`). */
  key?: string | undefined;
}): Promise<CommandResult> {
  let values: { 'data-dir': string; store?: string | undefined; json: boolean };
  try {
    values = parseArgs({
      args: [...args],
      options: { ...storeOptions, json: { type: 'boolean', default: false } },
    }).values as { 'data-dir': string; store?: string; json: boolean };
  } catch (error) {
    return { exitCode: 2, stdout: [], stderr: [`arbiter: ${(error as Error).message}`, auditVerifyUsage] };
  }
  const location = storeLocation({ values, environment });
  return withBackend({
    location,
    work: async (backend): Promise<CommandResult> => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${noStoreMessage(location)}`] };
      const report = await backend.audit.verifyChain({ key });
      const heads = [...report.heads].map(([tenant, hash]) => ({ tenant, hash }));
      if (values.json) {
        return {
          exitCode: report.ok ? 0 : 1,
          stdout: [JSON.stringify({ ...report, heads })],
          stderr: [],
        };
      }
      const checkpoints =
        report.unsignedCheckpoints === 0
          ? ''
          : `; ${report.unsignedCheckpoints} purge checkpoint${report.unsignedCheckpoints === 1 ? '' : 's'} not signed (plain hash${key === undefined || key === '' ? ', no ARBITER_AUDIT_KEY' : ''})`;
      const unchained = report.unchained === 0 ? '' : `; ${report.unchained} rows from before the chain not checked`;
      const summary = report.ok
        ? `audit log intact: ${report.rows} rows, ${heads.length} chain${heads.length === 1 ? '' : 's'}${unchained}${checkpoints}`
        : `audit log tampered: ${report.findings.length} finding${report.findings.length === 1 ? '' : 's'} in ${report.rows} rows${unchained}${checkpoints}`;
      return {
        exitCode: report.ok ? 0 : 1,
        stdout: [
          ...report.findings.map((finding) => finding.message),
          summary,
          ...heads.map(({ tenant, hash }) => `head ${tenant === '' ? '-' : tenant} ${hash}`),
        ],
        stderr: [],
      };
    },
  });
}
