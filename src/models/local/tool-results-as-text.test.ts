import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import { localRuntimeCandidates } from './load-local-runtime.js';
import type { LocalChatWrapper, LocalRuntime } from './local-runtime.js';
import { toChatHistory } from './to-chat-history.js';
import { toolResultsAsText } from './tool-results-as-text.js';

// The runtime is optional (scripts/install-local-model.sh); without it, outside CI, the rendering test is skipped.
const entry = localRuntimeCandidates()[1] as string;
const runtime = (await import('node-llama-cpp' as string).catch(() =>
  existsSync(new URL(entry)) ? import(entry) : undefined,
)) as (LocalRuntime & { QwenChatWrapper: new () => LocalChatWrapper }) | undefined;

const refusal =
  'The call to apply_refund was not run: 1 problem with its arguments. Fix it and call apply_refund again.\n' +
  '- `reason_category`: expected one of the allowed values. Allowed values: "damaged", "other". You sent the string "broken".';

const messages: ChatMessage[] = [
  { role: 'user', content: 'Refund 45.50 yuan on SO20260902, reason: broken.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'apply_refund', arguments: '{"reason_category":"broken"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: refusal },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c2', type: 'function', function: { name: 'apply_refund', arguments: '{"reason_category":"damaged"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c2', content: '{"refund_no":"RF2026090003"}' },
];

describe.skipIf(runtime === undefined && process.env.CI === undefined)(
  "a Qwen template, as Qwen's own template renders it",
  () => {
    it('writes a text result as it is and each later call in a turn of its own after the results before it', () => {
      if (runtime === undefined)
        throw new Error(`node-llama-cpp not found (${entry}): run bash scripts/install-local-model.sh`);
      const chatWrapper = toolResultsAsText({ chatWrapper: new runtime.QwenChatWrapper(), runtime });
      const { contextText } = (
        chatWrapper as unknown as { generateContextState(options: object): { contextText: unknown } }
      ).generateContextState({ chatHistory: toChatHistory({ messages }) });
      // What Qwen2.5's Jinja template writes for these messages (tool content as is, one assistant turn per message).
      expect(String(contextText)).toBe(
        '<|im_start|>user\nRefund 45.50 yuan on SO20260902, reason: broken.<|im_end|>\n' +
          '<|im_start|>assistant\n<tool_call>\n{"name": "apply_refund", "arguments": {"reason_category": "broken"}}\n</tool_call><|im_end|>\n' +
          `<|im_start|>user\n<tool_response>\n${refusal}\n</tool_response><|im_end|>\n` +
          '<|im_start|>assistant\n<tool_call>\n{"name": "apply_refund", "arguments": {"reason_category": "damaged"}}\n</tool_call><|im_end|>\n' +
          '<|im_start|>user\n<tool_response>\n{"refund_no":"RF2026090003"}\n</tool_response><|im_end|>\n' +
          '<|im_start|>assistant\n',
      );
    });
  },
);

const unusedRuntime: Pick<LocalRuntime, 'LlamaText'> = { LlamaText: () => 'changed' };

describe('toolResultsAsText', () => {
  it('leaves templates other than Qwen as they are', () => {
    const chatWrapper = { wrapperName: 'Llama 3.1' } as unknown as LocalChatWrapper;
    expect(toolResultsAsText({ chatWrapper, runtime: unusedRuntime })).toBe(chatWrapper);
    expect(Object.keys(chatWrapper)).toEqual(['wrapperName']);
  });
});
