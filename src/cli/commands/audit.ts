import type { CommandResult } from '../cli-output.js';
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
 * Exit 0, also when there is nothing to show; 2 when there is no store.
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
      const entries = await backend.audit.listAudit(sessionId === undefined ? {} : { sessionId });
      if (json) return { exitCode: 0, stdout: entries.map((entry) => JSON.stringify(entry)), stderr: [] };
      if (entries.length === 0) {
        return {
          exitCode: 0,
          stdout: [sessionId === undefined ? 'no audit entries' : `no audit entries for session ${sessionId}`],
          stderr: [],
        };
      }
      const rows = entries.map((entry) => [
        new Date(entry.at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        (entry.sessionId ?? '-').slice(0, 8),
        entry.runId.slice(0, 8),
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

function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
