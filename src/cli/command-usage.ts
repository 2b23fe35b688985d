import { readFileSync } from 'node:fs';
import { defaultPrincipalLimits } from '../server/principal-limits.js';

/** The usage lines of `arbiter serve`, for the CLI's help text. */
export const serveUsage = `  arbiter serve [--port 8787] [--host 127.0.0.1] [--data-dir .arbiter] [--store postgres://…] [--auth FILE]
               [--tools MODULE] [--mcp FILE] [--model scripted|openai|configured|local:FILE [--skip-model-check]]
               [--script FILE] [--memory-tools]
               [--allow-self-approval] [--node-id NAME] [--lease-ms N]
               [--max-streams N] [--sessions-per-minute N] [--messages-per-minute N]
      Serve the HTTP API, SSE streams, the chat page (http://HOST:PORT/) and the approver's desk (/desk).
      --store URL     keep sessions, runs, approvals and events in PostgreSQL (also ARBITER_STORE_URL), so any
                      number of nodes serve one database; default: SQLite in --data-dir
      --node-id NAME, --lease-ms N  with --store: this node's name in leases and logs (default: random), and how
                      long a run's lease lasts unrenewed, i.e. how soon another node resumes a dead node's runs (10000)
      --auth FILE     bearer tokens → principals (JSON, tokens of 32+ characters); default: the demo
                      tokens, shown at start, on a loopback --host only
      --tools MODULE  a module exporting createTools() or an array of tools, and optionally gateRules;
                      default: the shop example (examples/shop/shop-domain), with its refund hard cap
      --mcp FILE      MCP servers whose tools to mount next to those (a JSON list, docs/mcp.md); each
                      tool gets the tier its annotations give, behind the same gate, approvals and audit
      --model         scripted (offline, default) or openai: an OpenAI-compatible endpoint from ARBITER_BASE_URL,
                      ARBITER_API_KEY, ARBITER_MODEL (optional ARBITER_FALLBACK_MODEL), retried with backoff;
                      checked at start (GET /models): unreachable, key refused or model not listed exits 2;
                      or configured: the AI SDK provider ARBITER_PROVIDER names (anthropic, google or a package
                      name; installed beside arbiter) with ARBITER_MODEL and the provider's own variables
                      (ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, …); without ARBITER_PROVIDER, as openai;
                      or local:FILE: a GGUF model file run on this machine's CPU (optional package node-llama-cpp,
                      docs/models.md), loaded at start: a missing or unsupported file exits 2
      --skip-model-check  start without that check
      --script FILE   the scripted model's script (JSON); default: the shop chat
      ARBITER_SCRIPTED_LATENCY_MS  with --script: each model call takes this many ms and streams its text in
                      one piece (benchmarks); default: paced for a person (400 ms, then 15 ms a fragment)
      --memory-tools  mount save_fact and recall_facts beside the tools: long-term memory of each user,
                      bound to the caller's tenant and user (docs/memory.md); the default scripted chat
                      never calls them: give --script FILE with turns that do, or --model openai
      --allow-self-approval  let an approver decide approvals in his own sessions (four eyes off)
      --max-streams N, --sessions-per-minute N, --messages-per-minute N
                      per-user limits (default ${defaultPrincipalLimits.maxStreams}, ${defaultPrincipalLimits.sessionsPerMinute}, ${defaultPrincipalLimits.messagesPerMinute}); 429 beyond
      ARBITER_METRICS_TOKEN  scrape token (32+ characters) for /metrics of all tenants; without it,
                      only tokens with the "metrics" role read /metrics (their own tenant's)
`;

/** Where every operational command finds its store, and the application's tools. */
export const storeUsage = `      --data-dir DIR  the SQLite store DIR/arbiter.db (default .arbiter)
      --store URL     a PostgreSQL store (postgres://user:password@host:5432/database; also ARBITER_STORE_URL),
                      the same database arbiter serve --store uses`;

/** The usage text of `arbiter audit anchor`, for the CLI's help. */
export const auditAnchorUsage = `Usage:
  arbiter audit anchor [--out FILE] [--data-dir DIR | --store URL]
      Verify the audit log and print (or write to FILE) an anchor: the store's id, when its chain began
      and the head of every hash chain, signed with ARBITER_AUDIT_KEY (HMAC-SHA256; required, 32
      characters or more). Keep it outside the database; later, \`arbiter audit verify --anchor FILE\`
      names rows deleted or rewritten after it, an origin changed since, and another store's anchor.
      Exit 0 written, 1 the log is tampered (no anchor written), 2 no key, no store or bad usage.`;

/** The usage text of `arbiter audit purge`, for the CLI's help. */
export const auditPurgeUsage = `Usage:
  arbiter audit purge --older-than DAYS [--archive FILE] [--by NAME] [--data-dir DIR | --store URL]
      DAYS is at least the retention (ARBITER_AUDIT_RETENTION_DAYS, default 400, never below 30).`;

/** The usage text of `arbiter events`, for the CLI's help. */
export const eventsUsage = `Usage:
  arbiter events prune --older-than DAYS [--data-dir DIR | --store URL]
${storeUsage}`;

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
  arbiter memory list --user ID [--tenant T] [--history] [--json] [--data-dir DIR | --store URL]
  arbiter memory show FACT_ID --user ID [--tenant T] [--no-redact] [--json] [--data-dir DIR | --store URL]
  arbiter memory forget (--key KEY | --fact FACT_ID | --all) --user ID [--tenant T] [--data-dir DIR | --store URL]
  arbiter memory export --user ID [--tenant T] [--no-redact] [--data-dir DIR | --store URL]
  arbiter memory purge --expired [--data-dir DIR | --store URL]
Without --tenant, the user's tenant is used when the user has facts in exactly one.
${storeUsage}`;

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
  arbiter sessions list [--limit N] [--json] [--data-dir DIR | --store URL]
  arbiter sessions show ID [--redact] [--sensitive FIELD,...] [--tools MODULE|FILE] [--full] [--json] [--data-dir DIR | --store URL]
  arbiter sessions export ID [--no-redact] [--sensitive FIELD,...] [--tools MODULE|FILE] [--data-dir DIR | --store URL]
  arbiter sessions fork ID --at N [--data-dir DIR | --store URL]
  arbiter sessions purge (--older-than DAYS | --expired) [--data-dir DIR | --store URL]
      --tools MODULE  the application's tools module (as arbiter serve --tools): current names and sensitive
                      fields; a .json FILE (OpenAI function-calling tools) gives names only; default the shop example
${storeUsage}`;

/**
 * Every command's usage, in one place: `arbiter help` prints them all,
 * `arbiter COMMAND [SUBCOMMAND] --help` prints the one it names. A command
 * added to main.ts without an entry here has no help, which the CLI test
 * catches (it asks every command for its help).
 */
export const commandUsages: Readonly<Record<string, string>> = {
  demo: `arbiter demo [--vague-errors] [--approve | --reject] [--lang en|zh-CN] [--events progress|ndjson|none]
             [--session ID | --new] [--data-dir DIR] [--mcp FILE] [--model scripted|local:FILE]
    The shop demo, offline, on the scripted model, or with --model local:FILE on a GGUF model file run on
    this machine's CPU (docs/models.md). APPROVE=1 works like --approve;
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
  approvals: `arbiter approvals [--all] [--json] [--data-dir DIR | --store URL]
    List pending approvals (--all: decided ones too).`,
  approve: `arbiter approve ID [--reject] [--reason TEXT] [--by NAME] [--lang en|zh-CN] [--tools MODULE]
                [--data-dir DIR | --store URL]
    Decide one approval. Without --tools and --store, the shop demo's suspended run then continues;
    with them (--tools loaded, its tool checked), the run continues where the application runs it.
    Four eyes: --by (default the OS user, recorded with OS user and host) may not name the requester.`,
  audit: `arbiter audit [--session ID] [--json] [--data-dir DIR | --store URL]
    The append-only audit log.
arbiter audit purge --older-than DAYS [--archive FILE] [--by NAME] [--data-dir DIR | --store URL]
    Delete (after archiving to FILE as JSON lines) audit rows older than DAYS; the purge is audited.
    DAYS is at least ARBITER_AUDIT_RETENTION_DAYS (default 400, never below 30).
arbiter audit verify [--anchor FILE] [--json] [--data-dir DIR | --store URL]
    Recompute the audit hash chains; one line per row changed, inserted or deleted. Exit 0 intact, 1 tampered.
    Purge checkpoints are checked against ARBITER_AUDIT_KEY when set; --anchor also names rows deleted after it.
arbiter audit anchor [--out FILE] [--data-dir DIR | --store URL]
    The signed heads of every audit chain (ARBITER_AUDIT_KEY), to keep outside the database.`,
  events: `arbiter events prune --older-than DAYS [--data-dir DIR | --store URL]
    Delete the logged events of runs that finished more than DAYS ago.`,
  undo: `arbiter undo CALL_ID [--run RUN_ID] [--by NAME] [--tools MODULE] [--data-dir DIR | --store URL]
    Roll back one executed reversible call with its tool's undo (default tools: the shop example).`,
  sessions: `arbiter sessions list | show ID | export ID | fork ID --at N | purge (--older-than DAYS | --expired)
             [--tools MODULE] [--data-dir DIR | --store URL]
    Stored sessions.`,
  memory: `arbiter memory list | show FACT_ID | forget (--key K | --fact ID | --all) | export  --user ID [--tenant T]
             [--data-dir DIR | --store URL]
arbiter memory purge --expired [--data-dir DIR | --store URL]
    Long-term memory about one person: see it, export it (sensitive values redacted), forget it.`,
  serve: `arbiter serve [--port 8787] [--host 127.0.0.1] [--data-dir DIR | --store URL [--node-id NAME] [--lease-ms N]]
              [--auth FILE] [--tools MODULE] [--mcp FILE] [--model scripted|openai|configured [--skip-model-check]]
              [--script FILE] [--memory-tools] [--allow-self-approval] [--max-streams N]
              [--sessions-per-minute N] [--messages-per-minute N]
    The HTTP API, SSE streams and the chat page at http://HOST:PORT/ (arbiter serve --help: every flag; docs/serving.md).`,
  'fake-endpoint': `arbiter fake-endpoint [--port 8790] [--host 127.0.0.1] [--model fake-model] [--script FILE]
    A local OpenAI-compatible Chat Completions endpoint answered by a script (default: the shop chat, a
    tool call then an answer), to try --model openai offline; prints the ARBITER_* variables to export.`,
  eval: `arbiter eval [--suite DIR] [--baseline FILE] [--write-baseline FILE] [--json] [--model scripted|configured]
arbiter eval --experiment error-messages [--json]
arbiter eval --experiment routing [--suite DIR] [--top K] [--json]
    The evaluation suite (default evals/shop), the message-quality experiment,
    and tool routing on a labelled set (default evals/routing).`,
  stats: `arbiter stats [--data-dir DIR | --store URL] [--json] [--prometheus] [--price IN,OUT[,CURRENCY]]
    Metrics over the runs in a data directory.`,
  mcp: `arbiter mcp serve --tenant ID --user ID [--roles A,B] [--tools MODULE] [--data-dir DIR] [--lang en|zh-CN]
    The tools as an MCP server over stdio, every call validated, gated and audited (docs/mcp.md).
arbiter mcp tools [--name NAME] [--json] (-- COMMAND [ARGS…] | --url URL [--bearer TOKEN] [--header 'N: v']…)
    An MCP server's tools as arbiter would mount them: tier, tokens per turn, lint warnings, refusals.`,
};

/** The commands and subcommands whose usage says more than their line in `arbiter help`. */
const detailedUsages: Readonly<Record<string, string>> = {
  'audit purge': auditPurgeUsage,
  'audit anchor': auditAnchorUsage,
  'audit verify': `Usage:
  arbiter audit verify [--anchor FILE] [--json] [--data-dir DIR | --store URL]
      Recompute every audit hash chain from the stored rows and name every row that was changed,
      inserted or deleted by hand, every row without hashes written after the chain began, and every
      purge checkpoint whose signature does not hold. Rows deleted from the end of a chain show only
      against an anchor (--anchor FILE, from \`arbiter audit anchor\`, checked with ARBITER_AUDIT_KEY).
      Exit 0 intact, 1 tampered, 2 no store, bad anchor or bad usage. Purge checkpoints are signed with
      ARBITER_AUDIT_KEY (HMAC) when it is set, and checked against it.
${storeUsage}`,
  serve: `Usage:\n${serveUsage}`,
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
