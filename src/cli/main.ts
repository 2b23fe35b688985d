#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ArbiterError } from '../errors/arbiter-error.js';
import { UsageError } from '../errors/usage-error.js';
import type { Locale } from '../tools/tool-types.js';

const usage = `arbiter: the model proposes, code decides.

Usage:
  arbiter demo [--vague-errors] [--lang en|zh-CN] [--data-dir DIR]
      Run the shop demo offline on the scripted model.
  arbiter validate --tools FILE --calls FILE [--lang en|zh-CN]
      Check tool calls (JSONL) against tools (OpenAI function-calling JSON).
      Prints one JSON line per call. Exit 0 all valid, 1 any invalid, 2 bad input file.
  arbiter lint --tools FILE [--json]
      Warn about tool definitions models misuse; print tokens per turn.
      Exit 0 no warnings, 1 warnings, 2 bad input file.
  arbiter help
`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo': {
      const { values } = parseArgs({
        args: rest,
        options: {
          'vague-errors': { type: 'boolean', default: false },
          lang: { type: 'string', default: 'en' },
          'data-dir': { type: 'string', default: '.arbiter' },
        },
      });
      const { runShopDemo } = await import('../../examples/shop/shop-demo.js');
      const result = await runShopDemo({
        errorStyle: values['vague-errors'] ? 'vague' : 'full',
        locale: parseLocale(values.lang),
        dataDirectory: values['data-dir'],
        write: (line) => process.stdout.write(`${line}\n`),
      });
      return result.stopReason === 'error' ? 1 : 0;
    }
    case 'validate': {
      const { values } = parseArgs({
        args: rest,
        options: { tools: { type: 'string' }, calls: { type: 'string' }, lang: { type: 'string', default: 'en' } },
      });
      if (values.tools === undefined || values.calls === undefined)
        return fail('validate needs --tools FILE and --calls FILE');
      const { validateCalls } = await import('./commands/validate-calls.js');
      return print(
        await validateCalls({ toolsFile: values.tools, callsFile: values.calls, locale: parseLocale(values.lang) }),
      );
    }
    case 'lint': {
      const { values } = parseArgs({
        args: rest,
        options: { tools: { type: 'string' }, json: { type: 'boolean', default: false } },
      });
      if (values.tools === undefined) return fail('lint needs --tools FILE');
      const { lintTools } = await import('./commands/lint-tools.js');
      return print(await lintTools({ toolsFile: values.tools, json: values.json }));
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(usage);
      return command === undefined ? 2 : 0;
    default:
      return fail(`unknown command "${command}"`);
  }
}

function parseLocale(value: string | undefined): Locale {
  if (value === 'zh-CN' || value === 'zh') return 'zh-CN';
  if (value === undefined || value === 'en') return 'en';
  throw new UsageError({ message: `--lang must be en or zh-CN, got "${value}"` });
}

function print(result: { exitCode: number; stdout: readonly string[]; stderr: readonly string[] }): number {
  for (const line of result.stdout) process.stdout.write(`${line}\n`);
  for (const line of result.stderr) process.stderr.write(`${line}\n`);
  return result.exitCode;
}

function fail(message: string): number {
  process.stderr.write(`arbiter: ${message}\n\n${usage}`);
  return 2;
}

// A reader that stops early (`arbiter validate … | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Our own errors and parseArgs' errors are meant for people; anything else is a bug worth its stack.
    const forPeople =
      ArbiterError.isInstance(error) ||
      (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    const message = forPeople
      ? (error as Error).message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
    process.stderr.write(`arbiter: ${message}\n`);
    process.exitCode = 2;
  },
);
