import { hostname, userInfo } from 'node:os';
import { UsageError } from '../../errors/usage-error.js';

/** Where a decision on the command line was made: the machine's name and the OS account that ran the command. */
export interface CommandLineOrigin {
  readonly osUser: string;
  readonly host: string;
}

/**
 * This process's origin: the OS account by its uid in the system's user
 * database (not `$USER`, which any shell sets), or `uid N` where the uid
 * has no name (a container's), and the host name.
 *
 * @example
 * commandLineOrigin(); // { osUser: 'li', host: 'ops-7' }
 */
export function commandLineOrigin(): CommandLineOrigin {
  let osUser: string;
  try {
    osUser = userInfo().username;
  } catch {
    osUser = `uid ${process.getuid?.() ?? 'unknown'}`;
  }
  return { osUser: printable(osUser), host: printable(hostname()) };
}

/**
 * The approver a command-line decision is recorded under (in the approval
 * and, through it, the audit): the name `--by` gives, with where it was
 * given beside it, `li.wei (command line: OS user li, host ops-7)`. `--by`
 * is a claim, not a login: the origin says which account on which machine
 * made it. A name that is empty or holds brackets, control or invisible
 * formatting characters (which could forge an origin of its own, or pass
 * for the requester's name: `C1001` with a zero-width space) is a `UsageError`.
 *
 * @example
 * commandLineApprover({ by: 'li.wei', origin: { osUser: 'li', host: 'ops-7' } });
 * // 'li.wei (command line: OS user li, host ops-7)'
 */
export function commandLineApprover({ by, origin }: { by: string; origin: CommandLineOrigin }): string {
  return `${approverName(by)} (command line: OS user ${origin.osUser}, host ${origin.host})`;
}

/**
 * The name `--by` gives, trimmed: the identity the four-eyes rule compares
 * with the requester's user id. Throws `UsageError` for a name that is
 * empty or holds brackets, control or invisible formatting characters.
 *
 * @example
 * approverName(' li.wei '); // 'li.wei'
 */
export function approverName(by: string): string {
  const name = by.trim();
  if (name === '' || /[()[\]\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name)) {
    throw new UsageError({
      message: `--by must name who decides, without brackets, control or invisible characters, got ${JSON.stringify(by)}`,
    });
  }
  return name;
}

function printable(text: string): string {
  return text.replace(/[()[\]\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '?');
}
