import { userInfo } from 'node:os';
import { UndoError } from '../../errors/undo-error.js';
import { undoToolCall } from '../../loop/undo-tool-call.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { SqliteSessionStore } from '../../store/sqlite/sqlite-session-store.js';
import type { ToolSet } from '../../tools/tool-registry.js';
import type { CommandResult } from '../cli-output.js';
import { withDataStore } from './open-data-store.js';

/** Tools opened for one command, e.g. on the application's database, and how to close them again. */
export interface OpenedTools {
  readonly tools: ToolSet;
  close(): void;
}

/**
 * `arbiter undo CALL_ID [--run RUN_ID] [--by NAME] [--data-dir DIR]`: rolls
 * back one executed reversible call with its tool's `undo` (see
 * `undoToolCall`) and audits it. The application supplies its `tools`, or
 * a function that opens them, called only once the store is there (opening
 * tools may create their database, and a command that finds no store
 * leaves the directory as it was).
 * Exit 0 undone; 1 the call cannot be undone (unknown, not reversible,
 * already undone, undo failed); 2 no store.
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
  tools: toolsOrOpen,
}: {
  toolCallId: string;
  runId?: string;
  undoneBy?: string;
  dataDirectory?: string;
  tools: ToolSet | (() => OpenedTools | Promise<OpenedTools>);
}): Promise<CommandResult> {
  return withDataStore({
    dataDirectory,
    work: async (store, path): Promise<CommandResult> => {
      if (store === undefined) return { exitCode: 2, stdout: [], stderr: [`no arbiter store at ${path}`] };
      const { tools, close } =
        typeof toolsOrOpen === 'function' ? await toolsOrOpen() : { tools: toolsOrOpen, close: () => {} };
      try {
        const undone = await undoToolCall({
          audit: new SqliteAuditLog({ database: store.database }),
          sessions: new SqliteSessionStore({ database: store.database }),
          tools,
          toolCallId,
          undoneBy,
          ...(runId === undefined ? {} : { runId }),
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
        close();
      }
    },
  });
}
