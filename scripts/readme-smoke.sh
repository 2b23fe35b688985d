#!/usr/bin/env bash
# What a new user does with the README: a fresh `git clone`, the Quick start
# commands exactly as the README prints them, then every command of the
# README's CLI table, each checked for the exit code the table promises.
#
# The list of commands is read from the README, so a command added to the
# table without a step here (or removed from the CLI but left in the table)
# fails this script. Usage: scripts/readme-smoke.sh [REPOSITORY] (default:
# this checkout; only committed files are cloned).
set -euo pipefail

repository="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/arbiter-readme-smoke.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
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
  tail -n 3 "$work/out" | sed 's/^/  | /'
}

# The fenced block of a language that follows a README heading.
readme_block() {
  local heading="$1" language="$2"
  awk -v heading="$heading" -v fence="\`\`\`$language" '
    $0 == heading { in_section = 1; next }
    in_section && /^## / { exit }
    in_section && $0 == fence { in_block = 1; next }
    in_block && /^```/ { exit }
    in_block { print }
  ' README.md
}

step "git clone $repository"
git clone --quiet "$repository" "$work/arbiter"
cd "$work/arbiter"
data="$work/data"

# A fresh `npm install` compiles better-sqlite3 from source when no prebuilt
# binary can be fetched (minutes on a small machine). The checkout's
# node_modules, installed from the same lockfile, is copied in first, so the
# README's `npm install` below only checks it and builds dist/ (prepare).
if [ -d "$repository/node_modules" ]; then
  mkdir node_modules
  cp -a "$repository/node_modules/." node_modules/ # /. : the contents, also when node_modules is a link
fi
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

step "Quick start, as the README prints it"
quick_start="$(readme_block '## Quick start' sh)"
[ -n "$quick_start" ] || fail 'README has no sh block under "## Quick start"'
while IFS= read -r line; do
  [ -z "$line" ] && continue
  expect 0 -- bash -c "$line"
done <<<"$quick_start"
grep -q 'awaiting approval' "$work/out" || fail 'the demo did not stop at the approval the README describes'

step "Quick start: APPROVE=1 npm run demo decides the approval the first demo left"
expect 0 -- bash -c 'APPROVE=1 npm run demo'
grep -q 'continuing session' "$work/out" || fail 'APPROVE=1 npm run demo did not continue the earlier demo, as the README says it does'

step "the README's CLI table"
table_commands="$(grep -oE '^\| `arbiter [a-z]+' README.md | sed 's/^| `arbiter //' | sort -u)"
[ -n "$table_commands" ] || fail 'README has no CLI table'
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
smoke_eval() {
  expect 0 -- run_arbiter eval
  expect 0 -- run_arbiter eval --experiment error-messages
  expect 2 -- run_arbiter eval --suite "$work/missing-suite"
}
smoke_mcp() {
  # The README's stdio example, exactly as printed, on a data directory that does not exist yet.
  local example
  example="$(readme_block '### Serve arbiter'"'"'s tools over MCP' sh | sed "s|/tmp/arbiter-mcp|$work/mcp|")"
  [ -n "$example" ] || fail 'README has no sh block under "### Serve arbiter'"'"'s tools over MCP"'
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
  declare -F "smoke_$command" >/dev/null || fail "README's CLI table lists \`arbiter $command\` but this script has no step for it"
  step "arbiter $command"
  "smoke_$command"
done
for function in $(declare -F | awk '{print $3}' | grep '^smoke_'); do
  grep -qx "${function#smoke_}" <<<"$table_commands" || fail "this script checks \`arbiter ${function#smoke_}\`, which the README's CLI table no longer lists"
done
[ -z "$(ls -A "$work/empty")" ] || fail "a command that reads state created files in an empty data directory: $(ls -A "$work/empty")"

step "the README's other shell examples"
grep -E '^npm run arbiter -- (lint|validate) ' README.md | while IFS= read -r line; do
  expect_code=0
  [[ "$line" == *validate* ]] && expect_code=1
  expect "$expect_code" -- bash -c "$line"
done

step "Use it in your project: a fresh project installs the packed tarball"
# npm pack of this clone (its dist/ was built by the README's npm install above); the tarball is
# installed into a new project, its dependencies linked from the clone's node_modules as the lockfile
# resolved them (test/package/install-tarball.ts: a fresh npm install would compile better-sqlite3).
npm pack --silent --ignore-scripts --pack-destination "$work" >/dev/null # dist/ is built
tarball="$(ls "$work"/arbiter-runtime-core-*.tgz)"
project="$work/project"
mkdir -p "$project"
printf '{ "name": "my-project", "private": true, "type": "module" }\n' >"$project/package.json"
node --import tsx -e "
  const { installTarball } = await import('./test/package/install-tarball.ts');
  installTarball({ tarball: process.argv[1], name: '@arbiter-runtime/core', consumer: process.argv[2],
    checkout: process.cwd(), devDependencies: ['@types/node', 'typescript'] });
" "$tarball" "$project"
readme_block '## Use it in your project' json >"$project/tsconfig.json"
# Every TypeScript block of these sections that names its file (// tools.ts, // agent.ts, // server.ts;
# // reconcile.ts and // egress.ts under "Permission, approval, idempotency"; // a2a-call.ts under "A2A").
awk -v dir="$project" '
  /^## / { in_section = ($0 == "## Use it in your project" || $0 == "## Permission, approval, idempotency" || $0 == "## A2A") }
  in_section && /^```ts$/ { in_block = 1; file = ""; next }
  in_block && /^```/ { in_block = 0; next }
  in_block && file == "" && match($0, /^\/\/ [a-z0-9-]+\.ts$/) { file = dir "/" substr($0, 4); print > file; next }
  in_block && file != "" { print >> file }
' README.md
for file in tools.ts agent.ts server.ts reconcile.ts egress.ts a2a-call.ts; do [ -f "$project/$file" ] || fail "README has no $file snippet"; done
(
  cd "$project"
  expect 0 -- node node_modules/typescript/bin/tsc
  # The installed binary, not the checkout's.
  expect 0 -- npx arbiter --version
  grep -qx "$(node -p 'require("./node_modules/@arbiter-runtime/core/package.json").version')" "$work/out" || fail 'arbiter --version does not print the package version'
  expect 0 -- npx arbiter demo --events none --data-dir "$work/project-data"
  grep -q 'awaiting approval' "$work/out" || fail 'the installed demo did not stop at the approval'
  # agent.ts as the README runs it, on an endpoint that is not there: it says why, not "error undefined".
  expect 0 -- env ARBITER_BASE_URL=http://127.0.0.1:9/v1 ARBITER_API_KEY=none ARBITER_MODEL=none node dist/agent.js
  grep -q '^error ' "$work/out" && ! grep -q 'error undefined' "$work/out" || fail 'agent.ts did not say why the run failed'
  # The approval section's programs print what the README says they print.
  expect 0 -- node dist/reconcile.js
  grep -q 'Refund RF1 is on its way. | 1 refund' "$work/out" || fail 'reconcile.ts did not complete the interrupted refund from the shop'
  expect 0 -- node dist/egress.js
  grep -q 'send_email waits for a person: This conversation contains content from the web' "$work/out" || fail 'egress.ts: the mail did not wait with its reason'
  grep -q 'awaiting_approval | 0 mails sent' "$work/out" || fail 'egress.ts: a mail was sent'
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

printf '\nreadme-smoke: every README command behaved as documented (%ss)\n' "$((SECONDS - started))"
