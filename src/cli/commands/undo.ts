import { userInfo } from 'node:os';
import { AmbiguousIdError } from '../../errors/ambiguous-id-error.js';
import { UndoError } from '../../errors/undo-error.js';
import { undoToolCall } from '../../loop/undo-tool-call.js';
import type { ToolSet } from '../../tools/tool-registry.js';
import type { CommandResult } from '../cli-output.js';
import { resolveIdPrefix } from '../resolve-id-prefix.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation } from './store-location.js';

/** Tools opened for one command, e.g. on the application's database, and how to close them again. */
export interface OpenedTools {
  readonly tools: ToolSet;
  close(): void | Promise<void>;
}

/**
 * `arbiter undo CALL_ID [--run RUN_ID] [--by NAME] [--tools MODULE] [--data-dir DIR | --store URL]`: rolls
 * back one executed reversible call with its tool's `undo` (see
 * `undoToolCall`) and audits it. The application supplies its `tools`, or
 * a function that opens them, called only once the store is there (opening
 * tools may create their database, and a command that finds no store
 * leaves the directory as it was).
 * Exit 0 undone; 1 the call cannot be undone (unknown, not reversible,
 * already undone, undo failed); 2 no store, or a `runId` prefix that
 * several runs of this call id begin with (they are named).
 *
 * @example
 * await undoCommand({ toolCallId: 'call_7', tools: registry });
 * await undoCommand({ toolCallId: 'call_7', tools: () => openShopTools('.arbiter/shop.db') });
 */
export async function undoCommand({
  toolCallId,
  runId,
  undoneBy = userInfo().username,
  dataDirectory = '.arbiter',
  store,
  environment = process.env,
  tools: toolsOrOpen,
}: {
  toolCallId: string;
  runId?: string;
  undoneBy?: string;
  dataDirectory?: string;
  /** A PostgreSQL connection string (`--store`); else `ARBITER_STORE_URL`, else the SQLite file in `dataDirectory`. */
  store?: string | undefined;
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
  tools: ToolSet | (() => OpenedTools | Promise<OpenedTools>);
}): Promise<CommandResult> {
  const location = storeLocation({ values: { 'data-dir': dataDirectory, store }, environment });
  return withBackend({
    location,
    work: async (backend): Promise<CommandResult> => {
      if (backend === undefined) return { exitCode: 2, stdout: [], stderr: [noStoreMessage(location)] };
      // --run may be any beginning of the run's id that only one run with this call has.
      let run = runId;
      try {
        if (runId !== undefined) {
          const calls = await backend.audit.listAudit({ toolCallId });
          run = resolveIdPrefix({ given: runId, kind: 'run', candidates: calls.map((entry) => entry.runId) });
        }
      } catch (error) {
        if (!AmbiguousIdError.isInstance(error)) throw error;
        return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
      }
      const { tools, close } =
        typeof toolsOrOpen === 'function' ? await toolsOrOpen() : { tools: toolsOrOpen, close: () => {} };
      try {
        const undone = await undoToolCall({
          audit: backend.audit,
          sessions: backend.sessions,
          tools,
          toolCallId,
          undoneBy,
          ...(run === undefined ? {} : { runId: run }),
        });
        return {
          exitCode: 0,
          stdout: [
            `undone ${undone.toolCallId} (${undone.tool} ${JSON.stringify(undone.undid.arguments)}) by ${undoneBy}`,
          ],
          stderr: [],
        };
      } catch (error) {
        if (!UndoError.isInstance(error)) throw error;
        const cause = error.failure === 'undo_failed' && error.cause instanceof Error ? `: ${error.cause.message}` : '';
        return { exitCode: 1, stdout: [], stderr: [`${error.message}${cause}`] };
      } finally {
        await close();
      }
    },
  });
}
