import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkAuditAnchor } from '../../gate/audit-anchor.js';
import type { CheckedAuditAnchor } from '../../gate/verify-audit-chain.js';
import type { CommandResult } from '../cli-output.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation, storeOptions } from './store-location.js';

/** The usage text of `arbiter audit verify`, for the CLI's help. */
export const auditVerifyUsage = `Usage:
  arbiter audit verify [--anchor FILE] [--json] [--data-dir DIR | --store URL]
      Checks purge checkpoints against ARBITER_AUDIT_KEY when it is set; with --anchor (an
      \`arbiter audit anchor\` file, signed with ARBITER_AUDIT_KEY), also names rows deleted or
      rewritten after it, a record of when the chain began changed since, and an anchor of
      another store.`;

/**
 * `arbiter audit verify [--anchor FILE] [--json]`: recomputes the audit
 * log's hash chains (both formats) and prints one line per finding, naming
 * the first row where each break shows: changed, inserted or deleted outside
 * a purge, a row without hashes written after the chain began (see
 * `verifyAuditChain`), and with an anchor (`arbiter audit anchor`, checked
 * with `key`) a chain cut short or rewritten after it. With
 * ARBITER_AUDIT_KEY set (`key`), purge checkpoints must be signed with it;
 * without, they are taken as plain hashes and the summary says how many were
 * unsigned. Then a summary line, and per tenant a seal over its chains'
 * heads. Exit 0 intact, 1 findings, 2 bad usage, a bad anchor or no store.
 *
 * @example
 * const result = await auditVerifyCommand({ args: ['--data-dir', '.arbiter', '--anchor', 'anchor.json'], key: process.env.ARBITER_AUDIT_KEY });
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
  let values: { 'data-dir': string; store?: string | undefined; json: boolean; anchor: string | undefined };
  try {
    values = parseArgs({
      args: [...args],
      options: { ...storeOptions, json: { type: 'boolean', default: false }, anchor: { type: 'string' } },
    }).values as { 'data-dir': string; store?: string; json: boolean; anchor: string | undefined };
  } catch (error) {
    return { exitCode: 2, stdout: [], stderr: [`arbiter: ${(error as Error).message}`, auditVerifyUsage] };
  }
  let anchor: CheckedAuditAnchor | undefined;
  if (values.anchor !== undefined) {
    const read = readAnchor({ file: values.anchor, key });
    if (!read.ok) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${read.reason}`] };
    anchor = read.anchor;
  }
  const location = storeLocation({ values, environment });
  return withBackend({
    location,
    work: async (backend): Promise<CommandResult> => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${noStoreMessage(location)}`] };
      const report = await backend.audit.verifyChain({ key, anchor });
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
      const anchored = anchorSummary({ anchor, report });
      const summary = report.ok
        ? `audit log intact: ${report.rows} rows, ${heads.length} tenant${heads.length === 1 ? '' : 's'}, ${report.chains.length} chain${report.chains.length === 1 ? '' : 's'}${unchained}${checkpoints}${anchored}`
        : `audit log tampered: ${report.findings.length} finding${report.findings.length === 1 ? '' : 's'} in ${report.rows} rows${unchained}${checkpoints}${anchored}`;
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

/** What the summary line says of the anchor: how many heads were checked, and whether its store and origin were. */
function anchorSummary({
  anchor,
  report,
}: {
  anchor: CheckedAuditAnchor | undefined;
  report: { findings: readonly { kind: string }[] };
}): string {
  if (anchor === undefined) return '';
  if (report.findings.some((finding) => finding.kind === 'anchor')) return '; the anchor is of another store';
  const heads = `${anchor.chains.length} anchored head${anchor.chains.length === 1 ? '' : 's'} checked`;
  return anchor.store === undefined
    ? `; ${heads} (an anchor of the first format: it names no store and no origin, so neither was checked; take a new anchor)`
    : `; ${heads}, store and origin checked`;
}

function readAnchor({
  file,
  key,
}: {
  file: string;
  key: string | undefined;
}): { ok: true; anchor: CheckedAuditAnchor } | { ok: false; reason: string } {
  if (key === undefined || key === '')
    return { ok: false, reason: 'set ARBITER_AUDIT_KEY: an anchor is checked with it' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { ok: false, reason: `cannot read the anchor ${file}: ${(error as Error).message}` };
  }
  const checked = checkAuditAnchor({ anchor: parsed, key });
  return checked.ok ? { ok: true, anchor: checked.anchor } : { ok: false, reason: `${file}: ${checked.reason}` };
}
