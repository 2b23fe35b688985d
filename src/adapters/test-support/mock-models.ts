import { MockLanguageModelV3 } from 'ai6/test';
import { MockLanguageModelV4 } from 'ai7/test';
import type { BrainTurn, createShopBrain } from './shop-model-brain.js';

type Brain = ReturnType<typeof createShopBrain>;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function content(turn: BrainTurn) {
  return turn.kind === 'call'
    ? [{ type: 'tool-call' as const, toolCallId: turn.toolCallId, toolName: turn.toolName, input: turn.input }]
    : [{ type: 'text' as const, text: turn.text }];
}

function finishReason(turn: BrainTurn) {
  return { unified: turn.kind === 'call' ? ('tool-calls' as const) : ('stop' as const), raw: undefined };
}

function streamOf(turn: BrainTurn) {
  const parts =
    turn.kind === 'call'
      ? [{ type: 'tool-call' as const, toolCallId: turn.toolCallId, toolName: turn.toolName, input: turn.input }]
      : [
          { type: 'text-start' as const, id: 't1' },
          { type: 'text-delta' as const, id: 't1', delta: turn.text },
          { type: 'text-end' as const, id: 't1' },
        ];
  return new ReadableStream({
    start(controller) {
      controller.enqueue({ type: 'stream-start', warnings: [] });
      for (const part of parts) controller.enqueue(part);
      controller.enqueue({ type: 'finish', finishReason: finishReason(turn), usage });
      controller.close();
    },
  });
}

/** AI SDK 7's own mock model (`ai7/test`), answering from the brain. */
export function shopModelV4(brain: Brain): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const turn = brain.turn(prompt);
      return { content: content(turn), finishReason: finishReason(turn), usage, warnings: [] };
    },
    doStream: async ({ prompt }) => ({ stream: streamOf(brain.turn(prompt)) }),
  });
}

/** AI SDK 6's own mock model (`ai6/test`), answering from the brain. */
export function shopModelV3(brain: Brain): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const turn = brain.turn(prompt);
      return { content: content(turn), finishReason: finishReason(turn), usage, warnings: [] };
    },
    doStream: async ({ prompt }) => ({ stream: streamOf(brain.turn(prompt)) }),
  });
}
