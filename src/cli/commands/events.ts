import { parseArgs } from 'node:util';
import { ArbiterError } from '../../errors/arbiter-error.js';
import { UsageError } from '../../errors/usage-error.js';
import type { CommandResult } from '../cli-output.js';
import { eventsUsage } from '../command-usage.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { parseDays } from './parse-days.js';
import { storeLocation, storeOptions } from './store-location.js';

const dayMs = 86_400_000;

/**
 * `arbiter events prune --older-than DAYS`: deletes the logged events of
 * finished runs whose last event is older than DAYS (see `EventLog.prune`:
 * whole runs, never a run that is running or awaiting approval), in the
 * SQLite file of `--data-dir` or the PostgreSQL store of `--store`. Exit 0
 * done, 2 bad usage or no store.
 *
 * @example
 * const result = await eventsCommand({ args: ['prune', '--older-than', '30'] });
 */
export async function eventsCommand({
  args,
  now = Date.now,
  environment = process.env,
}: {
  args: readonly string[];
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The clock ages are measured from. Default `Date.now`. */
  now?: () => number;
}): Promise<CommandResult> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand.startsWith('-')) return usage('events needs a subcommand');
  if (subcommand !== 'prune') return usage(`unknown subcommand "${subcommand}"`);
  try {
    const { values } = parseArgs({
      args: [...rest],
      options: { ...storeOptions, 'older-than': { type: 'string' } },
    });
    const olderThanDays = parseDays(values['older-than'], '--older-than');
    if (olderThanDays === undefined) return usage('events prune needs --older-than DAYS');
    const location = storeLocation({ values, environment });
    return await withBackend({
      location,
      work: async (backend): Promise<CommandResult> => {
        if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${noStoreMessage(location)}`] };
        const pruned = await backend.events.prune({ before: now() - olderThanDays * dayMs });
        return {
          exitCode: 0,
          stdout: [
            `pruned ${pruned} event${pruned === 1 ? '' : 's'} of runs finished more than ${olderThanDays} days ago`,
          ],
          stderr: [],
        };
      },
    });
  } catch (error) {
    if (
      UsageError.isInstance(error) ||
      (error instanceof Error && String(Reflect.get(error, 'code')).startsWith('ERR_PARSE_ARGS'))
    ) {
      return usage((error as Error).message);
    }
    if (ArbiterError.isInstance(error)) return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
    throw error;
  }
}

function usage(message: string): CommandResult {
  return { exitCode: 2, stdout: [], stderr: [`arbiter: ${message}`, '', eventsUsage] };
}
