/**
 * One process of the crash test: runs or resumes the planned shop
 * conversation in DIRECTORY until it is complete (exit 0), unless killed.
 *
 * node --import tsx test/crash/crash-driver.ts DIRECTORY [--crash-at N] [--token-budget N] [--turns N]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { driveConversation } from './shop-conversation.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'crash-at': { type: 'string' },
    'token-budget': { type: 'string' },
    turns: { type: 'string' },
  },
});
const directory = positionals[0];
if (directory === undefined) {
  process.stderr.write('usage: crash-driver DIRECTORY [--crash-at N] [--token-budget N] [--turns N]\n');
  process.exit(2);
}
const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));
const crashAt = number(values['crash-at']);
const tokenBudget = number(values['token-budget']);
const turns = number(values.turns);
const results = await driveConversation({
  directory,
  logFile: join(directory, 'log.txt'),
  ...(crashAt === undefined ? {} : { crashAt }),
  ...(tokenBudget === undefined ? {} : { tokenBudget }),
  ...(turns === undefined ? {} : { turns }),
  onReady: () => process.stdout.write('ready\n'),
});
process.stdout.write(`${JSON.stringify(results.map((result) => result.stopReason))}\n`);
