#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { Locale } from '../core/locale.js';
import { ArbiterError } from '../errors/arbiter-error.js';
import { UsageError } from '../errors/usage-error.js';
import { localModelFile } from '../models/local/local-model-flag.js';
import { cliInvocation } from './cli-invocation.js';
import type { CommandResult } from './cli-output.js';
import { commandUsage, fullUsage, packageVersion } from './command-usage.js';
import { storeLocation, storeOptions } from './commands/store-location.js';
import { demoApprovalMode } from './demo-approval-mode.js';
import { loadDemoModule } from './demo-module.js';
import { unknownVariableWarnings } from './environment-hints.js';

const usage = fullUsage();

type Command = (args: readonly string[]) => Promise<number>;

const commands: Record<string, Command> = {
  demo: runDemo,
  validate: async (args) => {
    const { values } = parseArgs({
      args: [...args],
      options: { tools: { type: 'string' }, calls: { type: 'string' }, lang: { type: 'string', default: 'en' } },
    });
    if (values.tools === undefined || values.calls === undefined)
      return fail('validate needs --tools FILE and --calls FILE', 'validate');
    const { validateCalls } = await import('./commands/validate-calls.js');
    return print(validateCalls({ toolsFile: values.tools, callsFile: values.calls, locale: parseLocale(values.lang) }));
  },
  route: async (args) => {
    const { values } = parseArgs({
      args: [...args],
      options: { tools: { type: 'string' }, queries: { type: 'string' }, top: { type: 'string' } },
    });
    if (values.tools === undefined || values.queries === undefined)
      return fail('route needs --tools FILE and --queries FILE', 'route');
    const top = values.top === undefined ? undefined : Number(values.top);
    if (top !== undefined && !(Number.isInteger(top) && top >= 1))
      return fail('--top must be a whole number >= 1', 'route');
    const { routeQueries } = await import('./commands/route-queries.js');
    return print(
      routeQueries({ toolsFile: values.tools, queriesFile: values.queries, ...(top === undefined ? {} : { top }) }),
    );
  },
  lint: async (args) => {
    const { values } = parseArgs({
      args: [...args],
      options: { tools: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    if (values.tools === undefined) return fail('lint needs --tools FILE', 'lint');
    const { lintTools } = await import('./commands/lint-tools.js');
    return print(lintTools({ toolsFile: values.tools, json: values.json }));
  },
  approvals: async (args) => {
    const { values } = parseArgs({
      args: [...args],
      options: {
        all: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        ...storeOptions,
      },
    });
    const { approvalsCommand } = await import('./commands/approvals.js');
    return print(
      await approvalsCommand({
        dataDirectory: values['data-dir'],
        store: values.store,
        all: values.all,
        json: values.json,
      }),
    );
  },
  approve: async (args) => {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        reject: { type: 'boolean', default: false },
        reason: { type: 'string' },
        by: { type: 'string' },
        lang: { type: 'string' },
        tools: { type: 'string' },
        ...storeOptions,
      },
    });
    const [approvalId] = positionals;
    if (approvalId === undefined)
      return fail('approve needs the approval id (arbiter approvals lists them)', 'approve');
    const dataDirectory = values['data-dir'];
    // Without --lang, the lines follow the language of the approval's session.
    const locale = values.lang === undefined ? undefined : parseLocale(values.lang);
    const [{ approveCommand }, { openApplicationTools }] = await Promise.all([
      import('./commands/approve.js'),
      import('./commands/open-application-tools.js'),
    ]);
    const location = storeLocation({ values, environment: process.env });
    const toolsModule = values.tools;
    return print(
      await approveCommand({
        approvalId,
        decision: values.reject ? 'reject' : 'approve',
        dataDirectory,
        store: values.store,
        // --tools is loaded: the approval's tool is checked against the application's definition of it.
        ...(toolsModule === undefined
          ? {}
          : { tools: () => openApplicationTools({ module: toolsModule, dataDir: dataDirectory, mustExist: true }) }),
        ...(locale === undefined ? {} : { locale }),
        ...(values.by === undefined ? {} : { approver: values.by }),
        ...(values.reason === undefined ? {} : { reason: values.reason }),
        resume: async ({ sessionId, runId }) => {
          // On PostgreSQL the nodes of arbiter serve continue the run; the demo's runs continue here.
          if (location.dialect === 'postgres') {
            const { requeueServerRun } = await import('./commands/open-data-store.js');
            const requeued = await requeueServerRun({ location, runId });
            return {
              stdout: [
                requeued
                  ? `run ${runId} handed back to the servers on the store`
                  : `resume session ${sessionId} to continue`,
              ],
            };
          }
          if (values.tools !== undefined) return { stdout: [`resume session ${sessionId} to continue`] };
          const lines: string[] = [];
          const result = await (await loadDemoModule()).resumeDemo({
            sessionId,
            dataDirectory,
            ...(locale === undefined ? {} : { locale }),
            write: (line) => lines.push(line),
            cli: cliInvocation(),
          });
          return { stdout: lines, failed: result.stopReason === 'error' };
        },
      }),
    );
  },
  audit: async (args) => {
    if (args[0] === 'verify') {
      const { auditVerifyCommand } = await import('./commands/audit-verify.js');
      return print(await auditVerifyCommand({ args: args.slice(1), key: process.env['ARBITER_AUDIT_KEY'] }));
    }
    if (args[0] === 'anchor') {
      const { auditAnchorCommand } = await import('./commands/audit-anchor.js');
      return print(await auditAnchorCommand({ args: args.slice(1), key: process.env['ARBITER_AUDIT_KEY'] }));
    }
    if (args[0] === 'purge') {
      const { auditPurgeCommand } = await import('./commands/audit-purge.js');
      const retention = process.env['ARBITER_AUDIT_RETENTION_DAYS'];
      return print(
        await auditPurgeCommand({
          args: args.slice(1),
          ...(retention === undefined || retention === '' ? {} : { minimumRetentionDays: Number(retention) }),
        }),
      );
    }
    const { values } = parseArgs({
      args: [...args],
      options: { session: { type: 'string' }, json: { type: 'boolean', default: false }, ...storeOptions },
    });
    const { auditCommand } = await import('./commands/audit.js');
    return print(
      await auditCommand({
        dataDirectory: values['data-dir'],
        store: values.store,
        json: values.json,
        ...(values.session === undefined ? {} : { sessionId: values.session }),
      }),
    );
  },
  undo: async (args) => {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { run: { type: 'string' }, by: { type: 'string' }, tools: { type: 'string' }, ...storeOptions },
    });
    const [toolCallId] = positionals;
    if (toolCallId === undefined) return fail('undo needs the tool call id (arbiter audit lists them)', 'undo');
    const dataDirectory = values['data-dir'];
    const [{ undoCommand }, { openApplicationTools }] = await Promise.all([
      import('./commands/undo.js'),
      import('./commands/open-application-tools.js'),
    ]);
    return print(
      await undoCommand({
        toolCallId,
        dataDirectory,
        store: values.store,
        // Opened only once the store is there: opening the shop creates its database.
        tools: () => openApplicationTools({ module: values.tools, dataDir: dataDirectory, mustExist: true }),
        ...(values.run === undefined ? {} : { runId: values.run }),
        ...(values.by === undefined ? {} : { undoneBy: values.by }),
      }),
    );
  },
  events: async (args) => print(await (await import('./commands/events.js')).eventsCommand({ args })),
  sessions: async (args) => {
    const [{ sessionsCommand }, { openApplicationTools }] = await Promise.all([
      import('./commands/sessions.js'),
      import('./commands/open-application-tools.js'),
    ]);
    // --tools MODULE: the application's tools; a .json FILE stays the sessions command's own (names only).
    const { module, rest } = takeToolsModule(args);
    const dataDirectory = parseArgs({ args: rest, options: storeOptions, strict: false }).values['data-dir'];
    const opened = await openApplicationTools({
      module,
      dataDir: module === undefined ? ':memory:' : typeof dataDirectory === 'string' ? dataDirectory : '.arbiter',
    });
    try {
      return print(await sessionsCommand({ args: rest, environment: { tools: opened.tools } }));
    } finally {
      await opened.close();
    }
  },
  serve: async (args) => {
    const [{ runServe }, { stopWhenOrphaned }] = await Promise.all([
      import('./commands/serve.js'),
      import('./stop-when-orphaned.js'),
    ]);
    // Under `npm run arbiter -- serve &`, `kill $!` reaches npm and its shell, not this process.
    const unwatch = stopWhenOrphaned();
    try {
      return await runServe({ args, write: (line) => process.stdout.write(`${line}\n`) });
    } finally {
      unwatch();
    }
  },
  'fake-endpoint': async (args) => {
    const { runFakeEndpoint } = await import('./commands/fake-endpoint.js');
    return runFakeEndpoint({ args, write: (line) => process.stdout.write(`${line}\n`) });
  },
  eval: async (args) =>
    args[0] === 'yield'
      ? print(await (await import('./commands/eval-yield.js')).evalYieldFromArgs(args.slice(1)))
      : print(await (await import('./commands/eval.js')).evalFromArgs(args)),
  memory: async (args) => print(await (await import('./commands/memory.js')).memoryCommand({ args })),
  stats: async (args) => print(await (await import('./commands/stats.js')).statsFromArgs(args)),
  mcp: async (args) => {
    if (args[0] !== 'serve') return print(await (await import('./commands/mcp.js')).mcpCommand({ args }));
    const { runMcpServe } = await import('./commands/mcp-serve.js');
    return runMcpServe({ args: args.slice(1) });
  },
};

const dataDirOption = { 'data-dir': { type: 'string', default: '.arbiter' } } as const;

/** `--tools MODULE` taken out of `args` when it names a module (not a `.json` tools file), and the rest. */
function takeToolsModule(args: readonly string[]): { module: string | undefined; rest: string[] } {
  const rest = [...args];
  for (let index = 0; index < rest.length; index += 1) {
    const argument = rest[index] as string;
    const inline = argument.startsWith('--tools=') ? argument.slice('--tools='.length) : undefined;
    const value = inline ?? (argument === '--tools' ? rest[index + 1] : undefined);
    if (value === undefined || value.endsWith('.json')) continue;
    rest.splice(index, inline === undefined ? 2 : 1);
    return { module: value, rest };
  }
  return { module: undefined, rest };
}

async function runDemo(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      'vague-errors': { type: 'boolean', default: false },
      approve: { type: 'boolean', default: false },
      reject: { type: 'boolean', default: false },
      lang: { type: 'string', default: 'en' },
      events: { type: 'string', default: 'progress' },
      session: { type: 'string' },
      new: { type: 'boolean', default: false },
      mcp: { type: 'string' },
      model: { type: 'string', default: 'scripted' },
      ...dataDirOption,
    },
  });
  const localFile = localModelFile(values.model);
  if (values.model !== 'scripted' && localFile === undefined) {
    throw new UsageError({
      message: `--model must be scripted or local:FILE (a GGUF model file), got "${values.model}"`,
    });
  }
  const live = values.events === 'none' ? 'off' : values.events;
  if (live !== 'progress' && live !== 'ndjson' && live !== 'off') {
    throw new UsageError({ message: `--events must be progress, ndjson or none, got "${values.events}"` });
  }
  if (values.new && values.session !== undefined) {
    throw new UsageError({ message: '--new and --session exclude each other' });
  }
  // Loaded before the demo opens anything: a missing or unsupported file is said at once.
  const model =
    localFile === undefined
      ? undefined
      : new (await import('../models/local/local-model.js')).LocalModel({ file: localFile });
  await model?.load();
  const demo = await loadDemoModule();
  // MCP servers' tools next to the shop's: the scripted shop chat does not call them, the model sees them.
  const mcp =
    values.mcp === undefined ? undefined : await (await import('./demo-mcp.js')).openDemoMcp({ file: values.mcp });
  const tty = process.stdout.isTTY === true;
  // In NDJSON mode stdout carries events only; the transcript goes to stderr.
  const transcript = live === 'ndjson' ? process.stderr : process.stdout;
  const locale = parseLocale(values.lang);
  const approval = demoApprovalMode({
    approve: values.approve,
    reject: values.reject,
    env: process.env,
    isTTY: process.stdin.isTTY === true && tty,
  });
  const running = demo.runDemo({
    errorStyle: values['vague-errors'] ? 'vague' : 'full',
    locale,
    dataDirectory: values['data-dir'],
    approval,
    // A decision given up front is for the approval an earlier demo left pending, if there is one.
    continueWaiting: !values.new && (approval === 'approve' || approval === 'reject'),
    live,
    tty,
    writeRaw: (text) => process.stdout.write(text),
    modelLatencyMs: tty ? 400 : 0,
    write: (line) => transcript.write(`${line}\n`),
    // The session's own language: a zh-CN demo continued without --lang goes on in Chinese.
    onSession: (sessionId, sessionLocale) =>
      transcript.write(
        sessionLocale === 'zh-CN'
          ? `会话 ${sessionId}（用 --session ${sessionId} 继续）\n`
          : `session ${sessionId} (continue with --session ${sessionId})\n`,
      ),
    ...(values.session === undefined ? {} : { sessionId: values.session }),
    ...(mcp === undefined ? {} : { mountTools: (registry) => mcp.attach(registry) }),
    ...(model === undefined ? {} : { model }),
    cli: cliInvocation(),
  });
  const result = await running.finally(() => mcp?.close());
  return result.stopReason === 'error' ? 1 : 0;
}

function parseLocale(value: string | undefined): Locale {
  if (value === 'zh-CN' || value === 'zh') return 'zh-CN';
  if (value === undefined || value === 'en') return 'en';
  throw new UsageError({ message: `--lang must be en or zh-CN, got "${value}"` });
}

function print(result: CommandResult): number {
  for (const line of result.stdout) process.stdout.write(`${line}\n`);
  for (const line of withPrefix(result.stderr)) process.stderr.write(`${line}\n`);
  return result.exitCode;
}

/**
 * Every message on stderr starts `arbiter: `, once: the lines before a blank line or a usage text get it
 * unless they have it already; the usage text after them is printed as it is.
 */
function withPrefix(lines: readonly string[]): string[] {
  let message = true;
  return lines.map((line) => {
    if (line === '' || line.includes('\n') || /^(Usage:|\s)/.test(line)) message = false;
    return message && !line.startsWith('arbiter: ') ? `arbiter: ${line}` : line;
  });
}

/** A usage error: the message, then the usage of `command` (all commands' when none is named). */
function fail(message: string, command?: string): number {
  const shown = (command === undefined ? undefined : commandUsage({ command })) ?? usage;
  process.stderr.write(`arbiter: ${message}\n\n${shown}`);
  return 2;
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(usage);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-V') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (run === undefined) return fail(`unknown command "${command}"`);
  for (const warning of unknownVariableWarnings(process.env)) process.stderr.write(`arbiter: warning: ${warning}\n`);
  // Before `--`, whatever follows: there the arguments are another program's (`mcp tools -- server --help`).
  const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (own.includes('--help') || own.includes('-h')) {
    const subcommand = own[0] !== undefined && !own[0].startsWith('-') ? own[0] : undefined;
    process.stdout.write(commandUsage({ command, ...(subcommand === undefined ? {} : { subcommand }) }) ?? usage);
    return 0;
  }
  return run(rest);
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
    process.stderr.write(`arbiter: ${describeFailure(error)}\n`);
    process.exitCode = 2;
  },
);

/**
 * One line for what a person caused (our errors, parseArgs', the system's: a port in use, a file where a
 * directory should be); anything else is a bug worth its stack. ARBITER_DEBUG=1 shows every stack.
 */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (process.env['ARBITER_DEBUG'] === '1') return error.stack ?? error.message;
  const code = 'code' in error ? String(error.code) : '';
  const system = 'syscall' in error || /^E[A-Z]+$/.test(code);
  const forPeople = ArbiterError.isInstance(error) || code.startsWith('ERR_PARSE_ARGS') || system;
  if (!forPeople) return error.stack ?? error.message;
  // Ours are written for people whole (a tool definition's fields and the fix on the lines after the first).
  if (ArbiterError.isInstance(error)) return error.message.replace(/^arbiter: /, '');
  const line = (error.message.split('\n')[0] ?? '').replace(/^arbiter: /, '');
  if (code === 'EADDRINUSE')
    return `${line.replace(/^listen EADDRINUSE: /, '')}: another process listens there (choose --port)`;
  if (code === 'EEXIST' || code === 'ENOTDIR') return `${line} (--data-dir must be a directory or not exist yet)`;
  if (code.startsWith('ERR_PARSE_ARGS')) return `${line} (see arbiter ${process.argv[2] ?? ''} --help)`;
  return line;
}
