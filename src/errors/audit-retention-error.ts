import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.audit_retention';
const symbol = Symbol.for(marker);

/**
 * An audit purge (or a retention setting) that would reach rows the log must
 * keep: `olderThanDays` is below `minimumDays`, the configured retention
 * (never below the floor, `auditRetentionFloorDays`). Nothing was deleted.
 *
 * @example
 * throw new AuditRetentionError({ olderThanDays: 10, minimumDays: 400 });
 */
export class AuditRetentionError extends ArbiterError {
  readonly code = 'audit_retention' as const;
  readonly [symbol] = true;
  /** The age asked for, in days. */
  readonly olderThanDays: number;
  /** The youngest age the log lets go of, in days. */
  readonly minimumDays: number;

  constructor({ olderThanDays, minimumDays, cause }: { olderThanDays: number; minimumDays: number; cause?: unknown }) {
    super(
      `the audit log keeps ${minimumDays} days: rows older than ${olderThanDays} days cannot be purged (ask for ${minimumDays} or more)`,
      { cause },
    );
    this.olderThanDays = olderThanDays;
    this.minimumDays = minimumDays;
  }

  static override isInstance(error: unknown): error is AuditRetentionError {
    return ArbiterError.hasMarker(error, marker);
  }
}
