import { AuditRetentionError } from '../errors/audit-retention-error.js';
import { argumentsHash } from '../util/sha256.js';
import type { AuditCheckpoint } from './audit-checkpoint.js';
import type { AuditEntry } from './audit-log.js';

const dayMs = 86_400_000;

/**
 * The youngest age, in days, at which any audit row may ever be purged. The
 * databases enforce it too, by their own clock: SQLite's and PostgreSQL's
 * delete triggers refuse a row younger than this whatever the application
 * asks (migrations 16 and 13).
 */
export const auditRetentionFloorDays = 30;

/** The retention an audit log keeps unless configured otherwise: about thirteen months. */
export const defaultAuditRetentionDays = 400;

/** The tool name of the row an audit purge writes about itself. */
export const auditPurgeTool = 'arbiter.audit_purge';

/**
 * Where a purge copies the rows it deletes before it deletes them, inside
 * its transaction: when `write` throws, nothing is deleted. `location` is
 * recorded in the purge's own audit row.
 *
 * @example
 * const archive: AuditArchive = { location: 'audit-2024.jsonl', write: (rows) => appendJsonLines(rows) };
 */
export interface AuditArchive<Written = void> {
  readonly location: string;
  /** Called once with every row to be deleted, oldest first (none: an empty array). */
  write(rows: readonly AuditEntry[]): Written;
}

/** What an audit purge did. */
export interface AuditPurgeResult {
  /** Rows with `at` below this (epoch ms) were deleted. */
  readonly before: number;
  /** How many rows were deleted (the purge's own row is not one of them). */
  readonly deleted: number;
}

/**
 * Checks a configured minimum retention: a whole number of days, never below
 * `auditRetentionFloorDays`. Returns it.
 *
 * @example
 * new SqliteAuditLog({ database, minimumRetentionDays: checkAuditRetention(365) });
 */
export function checkAuditRetention(minimumRetentionDays: number): number {
  if (!Number.isFinite(minimumRetentionDays) || minimumRetentionDays < auditRetentionFloorDays) {
    throw new AuditRetentionError({ olderThanDays: minimumRetentionDays, minimumDays: auditRetentionFloorDays });
  }
  return minimumRetentionDays;
}

/**
 * The cutoff of a purge of rows older than `olderThanDays`, measured from
 * `now`; refuses (`AuditRetentionError`) an age below the log's minimum
 * retention.
 *
 * @example
 * auditPurgeCutoff({ now: Date.now(), olderThanDays: 400, minimumRetentionDays: 400 }); // 400 days ago
 */
export function auditPurgeCutoff({
  now,
  olderThanDays,
  minimumRetentionDays,
}: {
  /** The log's clock, epoch ms. */
  now: number;
  /** Rows older than this many days go. */
  olderThanDays: number;
  /** The configured retention (see `checkAuditRetention`). */
  minimumRetentionDays: number;
}): number {
  if (!Number.isFinite(olderThanDays) || olderThanDays < minimumRetentionDays) {
    throw new AuditRetentionError({ olderThanDays, minimumDays: minimumRetentionDays });
  }
  return now - olderThanDays * dayMs;
}

/**
 * The row a purge writes into the log it purged, in the purge's own
 * transaction: who (`approver`), when (`at`), the cutoff and how many rows
 * went (`arguments`), so the history shows that history was pruned.
 *
 * @example
 * const entry = auditPurgeEntry({ at: now, by: 'ops@example.com', before, olderThanDays: 400, deleted: 1200 });
 */
export function auditPurgeEntry({
  at,
  by,
  before,
  olderThanDays,
  deleted,
  archive,
  checkpoint,
}: {
  at: number;
  /** Who purged: a person or a job. */
  by: string;
  before: number;
  olderThanDays: number;
  deleted: number;
  /** Where the deleted rows were archived, when they were. */
  archive?: string | undefined;
  /** Where the chains the purge cut now start (`auditCheckpoint`). */
  checkpoint?: AuditCheckpoint | undefined;
}): AuditEntry {
  const purgeArguments = {
    before,
    older_than_days: olderThanDays,
    deleted,
    ...(archive === undefined ? {} : { archive }),
    ...(checkpoint === undefined ? {} : { checkpoint }),
  };
  const purgeId = `audit_purge_${at}`;
  return {
    at,
    sessionId: undefined,
    runId: purgeId,
    step: 0,
    toolCallId: purgeId,
    tool: auditPurgeTool,
    sideEffect: 'irreversible',
    argumentsHash: argumentsHash(purgeArguments),
    arguments: purgeArguments,
    decision: 'allowed',
    rule: 'audit_retention',
    approver: by,
    outcome: 'ok',
    durationMs: 0,
  };
}
