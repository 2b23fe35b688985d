#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { Locale } from '../core/locale.js';
import { ArbiterError } from '../errors/arbiter-error.js';
import { UsageError } from '../errors/usage-error.js';
import type { CommandResult } from './cli-output.js';
import { demoApprovalMode } from './demo-approval-mode.js';
import { loadDemoModule } from './demo-module.js';

const usage = `arbiter: the model proposes, code decides.

Usage:
  arbiter demo [--vague-errors] [--approve | --reject] [--lang en|zh-CN] [--events progress|ndjson|none]
               [--session ID | --new] [--data-dir DIR] [--mcp FILE]
      The shop demo, offline, on the scripted model. APPROVE=1 works like --approve;
      on a terminal without either flag it asks y/n at the approval. A decision goes
      to the approval an earlier demo left pending (its session continues) unless --new;
      --session ID continues a stored session.
  arbiter validate --tools FILE --calls FILE [--lang en|zh-CN]
      Check tool calls (JSONL) against tools (OpenAI function-calling JSON).
      One JSON line per call. Exit 0 all valid, 1 any invalid, 2 bad input file.
  arbiter route --tools FILE --queries FILE [--top K]
      Which tools routing sends for each request (JSONL {"id", "query"}), top K (default 6).
      One JSON line per request. Exit 0 all matched, 1 any matched no tool, 2 bad input file.
  arbiter lint --tools FILE [--json]
      Warn about tool definitions models misuse; print tokens per turn.
      Exit 0 no warnings, 1 warnings, 2 bad input file.
  arbiter approvals [--all] [--json] [--data-dir DIR]
  arbiter approve ID [--reject] [--reason TEXT] [--by NAME] [--lang en|zh-CN] [--data-dir DIR]
      List pending approvals; decide one (the demo's suspended run then continues).
  arbiter audit [--session ID] [--json] [--data-dir DIR]
      The append-only audit log.
  arbiter audit purge --older-than DAYS [--archive FILE] [--by NAME] [--data-dir DIR]
      Delete (after archiving to FILE as JSON lines) audit rows older than DAYS; the purge is audited.
      DAYS is at least ARBITER_AUDIT_RETENTION_DAYS (default 400, never below 30).
  arbiter audit verify [--json] [--data-dir DIR]
      Recompute the audit hash chains; one line per row changed, inserted or deleted. Exit 0 intact, 1 tampered.
      Purge checkpoints are checked against ARBITER_AUDIT_KEY when set.
  arbiter events prune --older-than DAYS [--data-dir DIR]
      Delete the logged events of runs that finished more than DAYS ago.
  arbiter undo CALL_ID [--run RUN_ID] [--by NAME] [--data-dir DIR]
      Roll back one executed reversible call (e.g. add_order_note).
  arbiter sessions list | show ID | export ID | fork ID --at N | purge (--older-than DAYS | --expired)
      Stored sessions (--data-dir DIR, default .arbiter).
  arbiter memory list | show FACT_ID | forget (--key K | --fact ID | --all) | export  --user ID [--tenant T]
  arbiter memory purge --expired
      Long-term memory about one person: see it, export it (sensitive values redacted), forget it.
  arbiter serve [--port 8787] [--host 127.0.0.1] [--data-dir DIR] [--auth FILE] [--tools MODULE] [--mcp FILE]
               [--model scripted|openai [--skip-model-check]] [--script FILE] [--allow-self-approval]
               [--max-streams N] [--sessions-per-minute N] [--messages-per-minute N]
      The HTTP API, SSE streams and the chat page at http://HOST:PORT/ (flags: README, "Serve it").
  arbiter eval [--suite DIR] [--baseline FILE] [--write-baseline FILE] [--json] [--model scripted|configured]
  arbiter eval --experiment error-messages [--json]
  arbiter eval --experiment routing [--suite DIR] [--top K] [--json]
      The evaluation suite (default evals/shop), the message-quality experiment,
      and tool routing on a labelled set (default evals/routing).
  arbiter stats [--data-dir DIR] [--json] [--prometheus] [--price IN,OUT[,CURRENCY]]
      Metrics over the runs in a data directory.
  arbiter mcp serve --tenant ID --user ID [--roles A,B] [--tools MODULE] [--data-dir DIR] [--lang en|zh-CN]
      The tools as an MCP server over stdio, every call validated, gated and audited (README, "MCP").
  arbiter mcp tools [--name NAME] [--json] (-- COMMAND [ARGS…] | --url URL [--bearer TOKEN] [--header 'N: v']…)
      An MCP server's tools as arbiter would mount them: tier, tokens per turn, lint warnings, refusals.
  arbiter help
`;

type Command = (args: readonly string[]) => Promise<number>;

const commands: Record<string, Command> = {
  demo: runDemo,
  validate: async (args) => {
    const { values } = parseArgs({
      args: [...args],
      options: { tools: { type: 'string' }, calls: { type: 'string' }, lang: { type: 'string', default: 'en' } },
    });
    if (values.tools === undefined || values.calls === undefined)
      return fail('validate needs --tools FILE and --calls FILE');
    const { validateCalls } = await import('./commands/validate-calls.js');
    return print(validateCalls({ toolsFile: values.tools, callsFile: values.calls, locale: parseLocale(values.lang) }));
  },
  route: async (args) => {
    const { values } = parseArgs({
      args: [...args],
      options: { tools: { type: 'string' }, queries: { type: 'string' }, top: { type: 'string' } },
    });
    if (values.tools === undefined || values.queries === undefined)
      return fail('route needs --tools FILE and --queries FILE');
    const top = values.top === undefined ? undefined : Number(values.top);
    if (top !== undefined && !(Number.isInteger(top) && top >= 1)) return fail('--top must be a whole number >= 1');
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
    if (values.tools === undefined) return fail('lint needs --tools FILE');
    const { lintTools } = await import('./commands/lint-tools.js');
    return print(lintTools({ toolsFile: values.tools, json: values.json }));
  },
  approvals: async (args) => {
    const { values } = parseArgs({
      args: [...args],
      options: {
        all: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        ...dataDirOption,
      },
    });
    const { approvalsCommand } = await import('./commands/approvals.js');
    return print(await approvalsCommand({ dataDirectory: values['data-dir'], all: values.all, json: values.json }));
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
        ...dataDirOption,
      },
    });
    const [approvalId] = positionals;
    if (approvalId === undefined) return fail('approve needs the approval id');
    const dataDirectory = values['data-dir'];
    // Without --lang, the lines follow the language of the approval's session.
    const locale = values.lang === undefined ? undefined : parseLocale(values.lang);
    const [{ approveCommand }, demo] = await Promise.all([import('./commands/approve.js'), loadDemoModule()]);
    return print(
      await approveCommand({
        approvalId,
        decision: values.reject ? 'reject' : 'approve',
        dataDirectory,
        ...(locale === undefined ? {} : { locale }),
        ...(values.by === undefined ? {} : { approver: values.by }),
        ...(values.reason === undefined ? {} : { reason: values.reason }),
        resume: async ({ sessionId }) => {
          const lines: string[] = [];
          const result = await demo.resumeDemo({
            sessionId,
            dataDirectory,
            ...(locale === undefined ? {} : { locale }),
            write: (line) => lines.push(line),
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
      options: { session: { type: 'string' }, json: { type: 'boolean', default: false }, ...dataDirOption },
    });
    const { auditCommand } = await import('./commands/audit.js');
    return print(
      await auditCommand({
        dataDirectory: values['data-dir'],
        json: values.json,
        ...(values.session === undefined ? {} : { sessionId: values.session }),
      }),
    );
  },
  undo: async (args) => {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { run: { type: 'string' }, by: { type: 'string' }, ...dataDirOption },
    });
    const [toolCallId] = positionals;
    if (toolCallId === undefined) return fail('undo needs the tool call id');
    const dataDirectory = values['data-dir'];
    const { undoCommand } = await import('./commands/undo.js');
    return print(
      await undoCommand({
        toolCallId,
        dataDirectory,
        // Opened only once the store is there: opening the shop creates its database.
        tools: async () => (await loadDemoModule()).openDemoTools({ dataDir: dataDirectory, mustExist: true }),
        ...(values.run === undefined ? {} : { runId: values.run }),
        ...(values.by === undefined ? {} : { undoneBy: values.by }),
      }),
    );
  },
  events: async (args) => print(await (await import('./commands/events.js')).eventsCommand({ args })),
  sessions: async (args) => {
    const { sessionsCommand } = await import('./commands/sessions.js');
    const shop = (await loadDemoModule()).openDemoTools({ dataDir: ':memory:' });
    try {
      return print(await sessionsCommand({ args, environment: { tools: shop.tools } }));
    } finally {
      shop.close();
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
  eval: async (args) => print(await (await import('./commands/eval.js')).evalFromArgs(args)),
  memory: async (args) => print(await (await import('./commands/memory.js')).memoryCommand({ args })),
  stats: async (args) => print((await import('./commands/stats.js')).statsFromArgs(args)),
  mcp: async (args) => {
    if (args[0] !== 'serve') return print(await (await import('./commands/mcp.js')).mcpCommand({ args }));
    const { runMcpServe } = await import('./commands/mcp-serve.js');
    return runMcpServe({ args: args.slice(1) });
  },
};

const dataDirOption = { 'data-dir': { type: 'string', default: '.arbiter' } } as const;

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
      ...dataDirOption,
    },
  });
  const live = values.events === 'none' ? 'off' : values.events;
  if (live !== 'progress' && live !== 'ndjson' && live !== 'off') {
    throw new UsageError({ message: `--events must be progress, ndjson or none, got "${values.events}"` });
  }
  if (values.new && values.session !== undefined) {
    throw new UsageError({ message: '--new and --session exclude each other' });
  }
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
    onSession: (sessionId) =>
      transcript.write(
        locale === 'zh-CN'
          ? `会话 ${sessionId}（用 --session ${sessionId} 继续）\n`
          : `session ${sessionId} (continue with --session ${sessionId})\n`,
      ),
    ...(values.session === undefined ? {} : { sessionId: values.session }),
    ...(mcp === undefined ? {} : { mountTools: (registry) => mcp.attach(registry) }),
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
  for (const line of result.stderr) process.stderr.write(`${line}\n`);
  return result.exitCode;
}

function fail(message: string): number {
  process.stderr.write(`arbiter: ${message}\n\n${usage}`);
  return 2;
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(usage);
    return command === undefined ? 2 : 0;
  }
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (run === undefined) return fail(`unknown command "${command}"`);
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
