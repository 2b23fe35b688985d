import { AmbiguousIdError } from '../../errors/ambiguous-id-error.js';
import type { AuditEntry } from '../../gate/audit-log.js';
import type { AuditStore } from '../../store/backend.js';
import type { CommandResult } from '../cli-output.js';
import { resolveIdPrefix } from '../resolve-id-prefix.js';
import { uniqueIdPrefixes } from '../unique-id-prefixes.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation } from './store-location.js';

const columns = [
  'at',
  'session',
  'run',
  'step',
  'call',
  'tool',
  'tier',
  'decision',
  'rule',
  'approver',
  'outcome',
  'ms',
];

/**
 * `arbiter audit [--session ID] [--json] [--data-dir DIR | --store URL]`: prints the
 * append-only audit log, oldest first: a table, or with `json` one JSON
 * line per entry (arguments with sensitive fields redacted, their sha256).
 * The table shows each session and run id by its shortest beginning no
 * other row's id shares (8 characters at least: ids made in the same minute
 * begin alike); `sessionId` may be any beginning of one session's id.
 * Exit 0, also when there is nothing to show; 2 when there is no store, or
 * when `sessionId` begins several sessions' ids (it names them).
 *
 * @example
 * const result = await auditCommand({ dataDirectory: '.arbiter', sessionId: 'c0ffee', json: true });
 */
export async function auditCommand({
  dataDirectory = '.arbiter',
  store,
  environment = process.env,
  sessionId,
  json = false,
}: {
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  sessionId?: string;
  json?: boolean;
}): Promise<CommandResult> {
  const location = storeLocation({ values: { 'data-dir': dataDirectory, store }, environment });
  return withBackend({
    location,
    work: async (backend): Promise<CommandResult> => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [noStoreMessage(location)] };
      let entries: readonly AuditEntry[];
      try {
        entries = await listEntries({ audit: backend.audit, sessionId });
      } catch (error) {
        if (!AmbiguousIdError.isInstance(error)) throw error;
        return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
      }
      if (json) return { exitCode: 0, stdout: entries.map((entry) => JSON.stringify(entry)), stderr: [] };
      if (entries.length === 0) {
        return {
          exitCode: 0,
          stdout: [sessionId === undefined ? 'no audit entries' : `no audit entries for session ${sessionId}`],
          stderr: [],
        };
      }
      const sessions = uniqueIdPrefixes({ ids: entries.flatMap((entry) => entry.sessionId ?? []) });
      const runs = uniqueIdPrefixes({ ids: entries.map((entry) => entry.runId) });
      const rows = entries.map((entry) => [
        new Date(entry.at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        entry.sessionId === undefined ? '-' : (sessions.get(entry.sessionId) ?? entry.sessionId),
        runs.get(entry.runId) ?? entry.runId,
        String(entry.step),
        entry.toolCallId,
        entry.tool,
        entry.sideEffect,
        entry.decision,
        entry.rule ?? '-',
        entry.approver ?? '-',
        entry.outcome,
        String(Math.round(entry.durationMs)),
      ]);
      return { exitCode: 0, stdout: formatTable([columns, ...rows]), stderr: [] };
    },
  });
}

/** The entries of the session `sessionId` names, whole or by its beginning; all of them without one. */
async function listEntries({
  audit,
  sessionId,
}: {
  audit: Pick<AuditStore, 'listAudit'>;
  sessionId: string | undefined;
}): Promise<readonly AuditEntry[]> {
  if (sessionId === undefined) return audit.listAudit({});
  const exact = await audit.listAudit({ sessionId });
  if (exact.length > 0) return exact;
  const all = await audit.listAudit({});
  const resolved = resolveIdPrefix({
    given: sessionId,
    kind: 'session',
    candidates: all.flatMap((entry) => entry.sessionId ?? []),
  });
  return all.filter((entry) => entry.sessionId === resolved);
}

function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
