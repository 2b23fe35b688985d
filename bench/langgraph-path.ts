/**
 * The agent-paths task (`agent-paths.ts`) as a LangGraph.js user writes it:
 * the quickstart's agent graph, `StateGraph(MessagesAnnotation)` with a
 * model node that invokes a chat model bound to the tools, the prebuilt
 * `ToolNode` and `toolsCondition`, compiled with the SQLite checkpointer
 * (`SqliteSaver.fromConnString` on a file, its own defaults: WAL, SQLite's
 * default `synchronous`), one new thread per run. The model is a
 * zero-latency chat model that asks for `query_order` on every step before
 * the last, then answers "done": `@langchain/core`'s testing models either
 * answer text only (`FakeListChatModel`) or the same message on every call
 * (`FakeStreamingChatModel`), so it is written as LangGraph's own tests
 * write theirs, a `BaseChatModel` whose `_generate` returns the next
 * message. It parses the call's JSON arguments, as a provider's chat model
 * does, and the `ToolNode` validates them against the tool's zod schema,
 * the same schema the AI SDK configuration uses.
 *
 * Loaded only by the LangGraph bench's worker (`langgraph-bench.ts`), so no
 * other configuration loads LangGraph.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { z } from 'zod';
import type { Path, PathRun } from './agent-paths.js';
import { orderResult } from './agent-paths.js';
import { orderId } from './ai-sdk-task-model.js';

const description = 'Look up one order. Not for shipments: use track_shipment.';

/**
 * A zero-latency chat model that asks for `query_order` until call `steps`,
 * then answers "done", counting its own calls (reset per run) like the
 * other configurations' models; `onCall` runs at the start of each call.
 */
class TaskChatModel extends BaseChatModel {
  readonly #steps: number;
  readonly #onCall: () => void;
  step = 0;

  constructor({ steps, onCall }: { steps: number; onCall: () => void }) {
    super({});
    this.#steps = steps;
    this.#onCall = onCall;
  }

  _llmType(): string {
    return 'zero-latency';
  }

  /** What a provider's chat model does with `bindTools`: the tools go in each request, which this model ignores. */
  override bindTools(): this {
    return this;
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    this.#onCall();
    this.step += 1;
    const message =
      this.step < this.#steps
        ? new AIMessage({
            content: '',
            tool_calls: [
              {
                id: `call_${this.step}`,
                name: 'query_order',
                args: JSON.parse(`{"order_id":"${orderId(this.step)}"}`) as Record<string, unknown>,
                type: 'tool_call',
              },
            ],
          })
        : new AIMessage({ content: 'done' });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

/** The LangGraph configuration, with the file its checkpointer writes (for the test that counts its rows). */
export interface LangGraphPath extends Omit<Path, 'name'> {
  readonly name: 'langgraph' | 'langgraph_normal';
  /** The SQLite file of the checkpointer. */
  readonly databasePath: string;
  /** The thread id of the latest run. */
  lastThreadId(): string;
}

/**
 * LangGraph.js's agent graph with the SQLite checkpointer on a file in a
 * temporary directory; each run is a new thread (as each arbiter durable run
 * is a new session) and must end with "done" after `steps` model calls.
 *
 * @example
 * const path = langGraphPath();
 * const task = path.task(20);
 * await task.run(); // task.stamps.length === 20
 * path.close();
 */
export function langGraphPath({
  synchronousNormal = false,
}: {
  /**
   * Sets `synchronous = NORMAL` on the checkpointer's connection, arbiter's
   * setting (no `fsync` per commit in WAL mode): the same durability as the
   * arbiter durable configuration. Default: the checkpointer as it comes.
   */
  synchronousNormal?: boolean;
} = {}): LangGraphPath {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-langgraph-bench-'));
  const databasePath = join(directory, 'checkpoints.db');
  const checkpointer = SqliteSaver.fromConnString(databasePath);
  if (synchronousNormal) checkpointer.db.pragma('synchronous = NORMAL');
  const queryOrder = tool(async ({ order_id }) => orderResult(order_id), {
    name: 'query_order',
    description,
    schema: z
      .object({
        order_id: z.string().regex(/^SO\d{8}$/),
        note: z.string().max(200).optional(),
      })
      .strict(),
  });
  const tools = [queryOrder];
  let threadCount = 0;
  let threadId = '';
  return {
    name: synchronousNormal ? 'langgraph_normal' : 'langgraph',
    databasePath,
    lastThreadId: () => threadId,
    task(steps): PathRun {
      const stamps: bigint[] = [];
      const model = new TaskChatModel({ steps, onCall: () => stamps.push(process.hrtime.bigint()) });
      const boundModel = model.bindTools();
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('agent', async (state: typeof MessagesAnnotation.State) => ({
          messages: [await boundModel.invoke(state.messages)],
        }))
        .addNode('tools', new ToolNode(tools))
        .addEdge(START, 'agent')
        .addConditionalEdges('agent', toolsCondition, ['tools', END])
        .addEdge('tools', 'agent')
        .compile({ checkpointer });
      return {
        stamps,
        prepare: async () => {
          threadCount += 1;
          threadId = `bench-${threadCount}`;
        },
        run: async () => {
          stamps.length = 0;
          model.step = 0;
          const result = await graph.invoke(
            { messages: [{ role: 'user', content: 'go' }] },
            // Each step is two supersteps (the model node, the tool node): LangGraph's default limit is 25.
            { configurable: { thread_id: threadId }, recursionLimit: 2 * steps + 5 },
          );
          const last = result.messages.at(-1);
          const toolAnswer = result.messages.at(-2)?.content;
          // user + (assistant, tool) per tool call + the answer; the tool ran (not a validation error as its result)
          if (
            result.messages.length !== 2 * steps ||
            last?.content !== 'done' ||
            typeof toolAnswer !== 'string' ||
            !toolAnswer.includes('"status":"shipped"')
          ) {
            throw new Error(
              `langgraph: the task ended after ${stamps.length} model calls and ${result.messages.length} messages, not ${steps}`,
            );
          }
        },
      };
    },
    close() {
      checkpointer.db.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
