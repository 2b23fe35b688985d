import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { ArbiterError } from '../../errors/arbiter-error.js';
import { AuditRetentionError } from '../../errors/audit-retention-error.js';
import { UsageError } from '../../errors/usage-error.js';
import type { AuditArchive } from '../../gate/audit-retention.js';
import type { CommandResult } from '../cli-output.js';
import { auditPurgeUsage } from '../command-usage.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { parseDays } from './parse-days.js';
import { storeLocation, storeOptions } from './store-location.js';

/**
 * `arbiter audit purge --older-than DAYS [--archive FILE]`: deletes the
 * audit rows older than DAYS through `SqliteAuditLog.purge` (first written
 * to FILE as JSON lines, a file that must not exist yet), which appends one
 * row recording who purged, when, the cutoff and the count. Exit 0 done,
 * 2 bad usage, DAYS below the retention, FILE already there, or no store.
 *
 * @example
 * const result = await auditPurgeCommand({ args: ['--older-than', '400', '--archive', 'audit-2024.jsonl'] });
 */
export async function auditPurgeCommand({
  args,
  minimumRetentionDays,
  now = Date.now,
  environment = process.env,
}: {
  args: readonly string[];
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The audit log's retention, e.g. from `ARBITER_AUDIT_RETENTION_DAYS`. Default 400. */
  minimumRetentionDays?: number;
  /** The clock ages are measured from. Default `Date.now`. */
  now?: () => number;
}): Promise<CommandResult> {
  try {
    const { values } = parseArgs({
      args: [...args],
      options: {
        ...storeOptions,
        'older-than': { type: 'string' },
        archive: { type: 'string' },
        by: { type: 'string' },
      },
    });
    const olderThanDays = parseDays(values['older-than'], '--older-than');
    if (olderThanDays === undefined) return usage('audit purge needs --older-than DAYS');
    const archivePath = values.archive;
    const location = storeLocation({ values, environment });
    return await withBackend({
      location,
      now,
      auditRetentionDays: minimumRetentionDays,
      work: async (backend): Promise<CommandResult> => {
        if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${noStoreMessage(location)}`] };
        const archive: AuditArchive | undefined =
          archivePath === undefined
            ? undefined
            : {
                location: archivePath,
                write: (rows) =>
                  writeArchive({ path: archivePath, lines: rows.map((row) => `${JSON.stringify(row)}\n`) }),
              };
        const { before, deleted } = await backend.audit.purge({
          olderThanDays,
          by: values.by ?? userInfo().username,
          ...(archive === undefined ? {} : { archive }),
        });
        return {
          exitCode: 0,
          stdout: [
            `purged ${deleted} audit row${deleted === 1 ? '' : 's'} older than ${new Date(before).toISOString()}` +
              (archivePath === undefined ? '' : `, archived to ${archivePath}`),
          ],
          stderr: [],
        };
      },
    });
  } catch (error) {
    if (
      UsageError.isInstance(error) ||
      AuditRetentionError.isInstance(error) ||
      (error instanceof Error && String(Reflect.get(error, 'code')).startsWith('ERR_PARSE_ARGS'))
    ) {
      return usage((error as Error).message);
    }
    if (ArbiterError.isInstance(error)) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
    throw error;
  }
}

/** Writes the archive; an existing file is never overwritten (it may be an earlier purge's only copy). */
function writeArchive({ path, lines }: { path: string; lines: readonly string[] }): void {
  try {
    writeFileSync(path, lines.join(''), { flag: 'wx' });
  } catch (error) {
    if (error instanceof Error && Reflect.get(error, 'code') === 'EEXIST') {
      throw new UsageError({ message: `--archive ${path} already exists: give a new file` });
    }
    throw error;
  }
}

function usage(message: string): CommandResult {
  return { exitCode: 2, stdout: [], stderr: [`arbiter: ${message}`, '', auditPurgeUsage] };
}
