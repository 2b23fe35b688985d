import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { langGraphPath } from '../bench/langgraph-path.js';

/**
 * The LangGraph configuration of `npm run bench -- langgraph`
 * (bench/langgraph-path.ts) really runs the task: 20 model calls, 19 tool
 * results, and a checkpoint per superstep in its SQLite file, so the bench
 * cannot measure a graph that stops at once or a checkpointer that writes
 * nothing.
 */
describe('the LangGraph bench path', () => {
  for (const synchronousNormal of [false, true]) {
    it(`runs 20 steps and writes their checkpoints to its SQLite file (synchronous NORMAL: ${synchronousNormal})`, async () => {
      const path = langGraphPath({ synchronousNormal });
      try {
        const task = path.task(20);
        for (let run = 0; run < 2; run += 1) {
          await task.prepare?.();
          await task.run();
          expect(task.stamps).toHaveLength(20);
        }
        const database = new Database(path.databasePath, { readonly: true });
        try {
          const perThread = database
            .prepare('SELECT thread_id AS thread, count(*) AS checkpoints FROM checkpoints GROUP BY thread_id')
            .all() as { thread: string; checkpoints: number }[];
          // The input (step -1) and its start (step 0), then a superstep each: 20 model nodes and 19 tool nodes.
          expect(perThread).toEqual([
            { thread: 'bench-1', checkpoints: 41 },
            { thread: 'bench-2', checkpoints: 41 },
          ]);
          const toolResults = database
            .prepare(
              "SELECT count(*) AS count FROM writes WHERE thread_id = ? AND channel = 'messages' AND CAST(value AS TEXT) LIKE ?",
            )
            .get(path.lastThreadId(), '%shipped%') as { count: number };
          expect(toolResults.count).toBe(19);
        } finally {
          database.close();
        }
      } finally {
        path.close();
      }
    }, 120_000);
  }
});
