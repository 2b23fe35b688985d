import { UsageError } from '../../errors/usage-error.js';

/**
 * A number of days given on the command line: undefined when the flag is
 * absent, a `UsageError` naming the flag when it is not a number of 0 or more.
 *
 * @example
 * parseDays('30', '--older-than'); // 30
 */
export function parseDays(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const days = Number(value);
  if (value.trim() === '' || !Number.isFinite(days) || days < 0) {
    throw new UsageError({ message: `${flag} must be a number of days (0 or more), got "${value}"` });
  }
  return days;
}
