/**
 * Instructions per step commit of the SQLite session journal alone (issue
 * 48): the store's side of a durable step, without the loop, the gate or
 * the audit around it, so the dialect port's programs can be set against
 * a27bfa0's direct statements (or any build's) without the rest of the
 * path's noise. Plain JavaScript, so it runs against an older build's
 * `dist-bench` too (`npm run bench -- compare REV` leaves REV's in
 * `$TMPDIR/arbiter-compare-<commit>`):
 *
 *   valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file=/tmp/cg.out \
 *     node bench/count-journal-instructions.mjs "$PWD/dist-bench" 30000 25000
 *   grep totals /tmp/cg.out-01   # the main thread; divide by (30000 - 25000) commits
 *
 * Arguments: the build's `dist-bench` folder (absolute), commits in all,
 * commits before counting starts, and `rerunnable` to queue each commit
 * for the connection's next transaction instead. Each commit appends one
 * assistant message with a tool call to a run of 20 steps (then a new
 * session and run): an UPDATE of the session row and an INSERT of the
 * message in one `BEGIN IMMEDIATE` transaction on SQLite `:memory:`.
 * Without valgrind it runs uncounted (`callgrind_control` is called only
 * under it).
 */
import { execFileSync } from 'node:child_process';

const [dist, totalArgument = '30000', afterArgument = '25000', mode = 'now'] = process.argv.slice(2);
if (dist === undefined)
  throw new Error('usage: count-journal-instructions.mjs <dist-bench folder> [total] [after] [now|rerunnable]');
const { openSqliteStore } = await import(`${dist}/src/store/sqlite/sqlite-store.js`);
const { SqliteSessionStore } = await import(`${dist}/src/store/sqlite/sqlite-session-store.js`);
const store = openSqliteStore({ path: ':memory:' });
const sessions = new SqliteSessionStore({ database: store.database });
const total = Number(totalArgument);
const after = Number(afterArgument);
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const underValgrind = process.env.LD_PRELOAD?.includes('valgrind') === true || process.env.VALGRIND_LIB !== undefined;
const instrumentation = (state) => {
  if (underValgrind) execFileSync('callgrind_control', ['-i', state, String(process.pid)], { stdio: 'ignore' });
};

let session = 0;
let steps = 0;
let journal;
async function nextRun() {
  session += 1;
  steps = 0;
  const sessionId = `s${session}`;
  await sessions.create({ sessionId });
  await sessions.beginRun({ sessionId, runId: `run-${session}`, messages: [{ role: 'user', content: 'go' }] });
  journal = sessions.journal({ sessionId, expectedMessageCount: 1, newRunId: `run-${session}` });
}

await nextRun();
for (let index = 0; index < total; index += 1) {
  if (index === after) instrumentation('on');
  if (steps === 20) await nextRun();
  steps += 1;
  const message = {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: `call_${steps}`,
        type: 'function',
        function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
      },
    ],
  };
  const committing = journal.commitStep({
    runId: `run-${session}`,
    sessionId: `s${session}`,
    appended: [message],
    steps,
    usage,
    cost: 0,
    lastSeq: steps * 4,
    ...(mode === 'rerunnable' ? { rerunnable: true } : {}),
  });
  if (committing !== undefined) await committing;
}
instrumentation('off');
store.close();
console.log(`${total - after} step commits counted after ${after}`);
