import { readFileSync } from 'node:fs';

/** The usage text of `arbiter audit purge`, for the CLI's help. */
export const auditPurgeUsage = `Usage:
  arbiter audit purge --older-than DAYS [--archive FILE] [--by NAME] [--data-dir DIR]
      DAYS is at least the retention (ARBITER_AUDIT_RETENTION_DAYS, default 400, never below 30).`;

/** The usage text of `arbiter events`, for the CLI's help. */
export const eventsUsage = `Usage:
  arbiter events prune --older-than DAYS [--data-dir DIR]`;

/** The usage lines of `arbiter mcp serve`, for the CLI's help text. */
export const mcpServeUsage = `  arbiter mcp serve --tenant ID --user ID [--roles A,B] [--tools MODULE] [--data-dir DIR] [--lang en|zh-CN]
                    [--approve-in-client]
      Serve the tools over MCP on stdin/stdout (for an MCP client that starts it as a command).
      Every call acts for the principal given by --tenant/--user/--roles (or ARBITER_MCP_TENANT,
      ARBITER_MCP_USER, ARBITER_MCP_ROLES) and goes through validation, the gate, idempotency and
      the audit log in --data-dir (default .arbiter). A call that needs a person is not run: decide it
      with \`arbiter approve ID --data-dir DIR\` (or POST /v1/approvals/ID on arbiter serve on the same
      data dir), then the client repeats the call. --tools: as arbiter serve's; default the shop example.
      --approve-in-client  the person at the MCP client decides held calls there (form elicitation,
                      where the client supports it), recorded as approved by --user: four eyes off
`;

/** The usage text of `arbiter memory`, for the CLI's help. */
export const memoryUsage = `Usage:
  arbiter memory list --user ID [--tenant T] [--history] [--json] [--data-dir DIR]
  arbiter memory show FACT_ID --user ID [--tenant T] [--no-redact] [--json] [--data-dir DIR]
  arbiter memory forget (--key KEY | --fact FACT_ID | --all) --user ID [--tenant T] [--data-dir DIR]
  arbiter memory export --user ID [--tenant T] [--no-redact] [--data-dir DIR]
  arbiter memory purge --expired [--data-dir DIR]
Without --tenant, the user's tenant is used when the user has facts in exactly one.`;

/** The usage lines of `arbiter mcp`, for the CLI's help text. */
export const mcpUsage = `  arbiter mcp tools [--name NAME] [--json] [--timeout-ms N] -- COMMAND [ARGS…]
  arbiter mcp tools [--name NAME] [--json] --url URL [--bearer TOKEN] [--header 'Name: value']…
      An MCP server's tools as arbiter mounts them (stdio COMMAND, or Streamable HTTP URL): the protocol
      revision agreed, then name, tier from the annotations, tokens per turn, lint warnings, tools
      refused and why.
      Exit 0 all clean, 1 warnings or refused tools, 2 server unreachable or bad usage.
  arbiter mcp serve …
      arbiter's tools as an MCP server (arbiter mcp serve --help).
`;

/** The usage text of `arbiter sessions`, for the CLI's help. */
export const sessionsUsage = `Usage:
  arbiter sessions list [--data-dir DIR] [--limit N] [--json]
  arbiter sessions show ID [--data-dir DIR] [--redact] [--sensitive FIELD,...] [--tools FILE] [--full] [--json]
  arbiter sessions export ID [--data-dir DIR] [--no-redact] [--sensitive FIELD,...] [--tools FILE]
  arbiter sessions fork ID --at N [--data-dir DIR]
  arbiter sessions purge (--older-than DAYS | --expired) [--data-dir DIR]`;

/**
 * Every command's usage, in one place: `arbiter help` prints them all,
 * `arbiter COMMAND [SUBCOMMAND] --help` prints the one it names. A command
 * added to main.ts without an entry here has no help, which the CLI test
 * catches (it asks every command for its help).
 */
export const commandUsages: Readonly<Record<string, string>> = {
  demo: `arbiter demo [--vague-errors] [--approve | --reject] [--lang en|zh-CN] [--events progress|ndjson|none]
             [--session ID | --new] [--data-dir DIR] [--mcp FILE]
    The shop demo, offline, on the scripted model. APPROVE=1 works like --approve;
    on a terminal without either flag it asks y/n at the approval. A decision goes
    to the approval an earlier demo left pending (its session continues) unless --new;
    --session ID continues a stored session.`,
  validate: `arbiter validate --tools FILE --calls FILE [--lang en|zh-CN]
    Check tool calls (JSONL) against tools (OpenAI function-calling JSON).
    One JSON line per call. Exit 0 all valid, 1 any invalid, 2 bad input file.`,
  route: `arbiter route --tools FILE --queries FILE [--top K]
    Which tools routing sends for each request (JSONL {"id", "query"}), top K (default 6).
    One JSON line per request, then a summary on stderr.
    Exit 0 all matched, 1 any matched no tool (named on stderr), 2 bad input file.`,
  lint: `arbiter lint --tools FILE [--json]
    Warn about tool definitions models misuse; print tokens per turn.
    Exit 0 no warnings, 1 warnings, 2 bad input file.`,
  approvals: `arbiter approvals [--all] [--json] [--data-dir DIR]
    List pending approvals (--all: decided ones too).`,
  approve: `arbiter approve ID [--reject] [--reason TEXT] [--by NAME] [--lang en|zh-CN] [--data-dir DIR]
    Decide one approval (the demo's suspended run then continues).`,
  audit: `arbiter audit [--session ID] [--json] [--data-dir DIR]
    The append-only audit log.
arbiter audit purge --older-than DAYS [--archive FILE] [--by NAME] [--data-dir DIR]
    Delete (after archiving to FILE as JSON lines) audit rows older than DAYS; the purge is audited.
    DAYS is at least ARBITER_AUDIT_RETENTION_DAYS (default 400, never below 30).
arbiter audit verify [--json] [--data-dir DIR]
    Recompute the audit hash chains; one line per row changed, inserted or deleted. Exit 0 intact, 1 tampered.
    Purge checkpoints are checked against ARBITER_AUDIT_KEY when set.`,
  events: `arbiter events prune --older-than DAYS [--data-dir DIR]
    Delete the logged events of runs that finished more than DAYS ago.`,
  undo: `arbiter undo CALL_ID [--run RUN_ID] [--by NAME] [--data-dir DIR]
    Roll back one executed reversible call (e.g. add_order_note).`,
  sessions: `arbiter sessions list | show ID | export ID | fork ID --at N | purge (--older-than DAYS | --expired)
             [--data-dir DIR]
    Stored sessions (default data directory .arbiter).`,
  memory: `arbiter memory list | show FACT_ID | forget (--key K | --fact ID | --all) | export  --user ID [--tenant T]
             [--data-dir DIR]
arbiter memory purge --expired [--data-dir DIR]
    Long-term memory about one person: see it, export it (sensitive values redacted), forget it.`,
  serve: `arbiter serve [--port 8787] [--host 127.0.0.1] [--data-dir DIR] [--auth FILE] [--tools MODULE] [--mcp FILE]
              [--model scripted|openai [--skip-model-check]] [--script FILE] [--memory-tools]
              [--allow-self-approval] [--max-streams N] [--sessions-per-minute N] [--messages-per-minute N]
    The HTTP API, SSE streams and the chat page at http://HOST:PORT/ (flags: docs/serving.md).`,
  'fake-endpoint': `arbiter fake-endpoint [--port 8790] [--host 127.0.0.1] [--model fake-model] [--script FILE]
    A local OpenAI-compatible Chat Completions endpoint answered by a script (default: the shop chat, a
    tool call then an answer), to try --model openai offline; prints the ARBITER_* variables to export.`,
  eval: `arbiter eval [--suite DIR] [--baseline FILE] [--write-baseline FILE] [--json] [--model scripted|configured]
arbiter eval --experiment error-messages [--json]
arbiter eval --experiment routing [--suite DIR] [--top K] [--json]
    The evaluation suite (default evals/shop), the message-quality experiment,
    and tool routing on a labelled set (default evals/routing).`,
  stats: `arbiter stats [--data-dir DIR] [--json] [--prometheus] [--price IN,OUT[,CURRENCY]]
    Metrics over the runs in a data directory.`,
  mcp: `arbiter mcp serve --tenant ID --user ID [--roles A,B] [--tools MODULE] [--data-dir DIR] [--lang en|zh-CN]
    The tools as an MCP server over stdio, every call validated, gated and audited (docs/mcp.md).
arbiter mcp tools [--name NAME] [--json] (-- COMMAND [ARGS…] | --url URL [--bearer TOKEN] [--header 'N: v']…)
    An MCP server's tools as arbiter would mount them: tier, tokens per turn, lint warnings, refusals.`,
};

/** The commands and subcommands whose usage says more than their line in `arbiter help`. */
const detailedUsages: Readonly<Record<string, string>> = {
  'audit purge': auditPurgeUsage,
  'audit verify': `Usage:
  arbiter audit verify [--json] [--data-dir DIR]
      Recompute each tenant's audit hash chain from the stored rows and name every row that was changed,
      inserted or deleted by hand, and every purge checkpoint whose signature does not hold.
      Exit 0 intact, 1 tampered, 2 no store or bad usage. Purge checkpoints are signed with
      ARBITER_AUDIT_KEY (HMAC) when it is set, and checked against it.`,
  events: eventsUsage,
  'events prune': eventsUsage,
  memory: memoryUsage,
  sessions: sessionsUsage,
  mcp: `Usage:\n${mcpUsage}`,
  'mcp tools': `Usage:\n${mcpUsage}`,
  'mcp serve': `Usage:\n${mcpServeUsage}`,
};

/** The whole `arbiter help`. */
export function fullUsage(): string {
  const body = Object.values(commandUsages)
    .map((entry) => indent(entry))
    .join('\n');
  return `arbiter: the model proposes, code decides.

Usage:
${body}
  arbiter help | --help | -h          This text.
  arbiter --version | -V              The package version.
  arbiter COMMAND --help              One command's usage.
`;
}

/**
 * The usage for `arbiter COMMAND [SUBCOMMAND]`, or undefined when there is
 * no such command.
 *
 * @example
 * commandUsage({ command: 'mcp', subcommand: 'tools' }); // 'Usage:\n  arbiter mcp tools …'
 */
export function commandUsage({ command, subcommand }: { command: string; subcommand?: string }): string | undefined {
  const detailed =
    (subcommand === undefined ? undefined : detailedUsages[`${command} ${subcommand}`]) ?? detailedUsages[command];
  if (detailed !== undefined) return detailed.endsWith('\n') ? detailed : `${detailed}\n`;
  const entry = Object.hasOwn(commandUsages, command) ? commandUsages[command] : undefined;
  return entry === undefined ? undefined : `Usage:\n${indent(entry)}\n`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * The version of the package this CLI ships in, read from its package.json
 * (two folders up in src/, three in dist/src/).
 *
 * @example
 * packageVersion(); // '0.9.0'
 */
export function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === '@arbiter-runtime/core' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // Not this folder: try the next one.
    }
  }
  return 'unknown';
}
