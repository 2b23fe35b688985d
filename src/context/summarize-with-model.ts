import type { ChatMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { Model } from '../models/model.js';
import type { Summarize } from './compress-context.js';
import { contextTexts } from './context-texts.js';
import { cutMiddle } from './cut-middle.js';

/** The transcript a summary call reads is cut in the middle beyond this many characters. */
export const SUMMARY_INPUT_CHARS = 60_000;

/**
 * A `Summarize` that asks a model, through the `Model` interface, with no
 * tools mounted. The call's usage is returned so the loop can count it in
 * the run's token budget. The conversation is sent as one transcript (not as
 * chat turns) so the model summarises it instead of continuing it.
 *
 * @example
 * const summarize = summarizeWithModel({ model });
 * const { text, usage } = await summarize({ messages: earlier, previous: undefined });
 */
export function summarizeWithModel({
  model,
  locale = 'en',
  maxInputChars = SUMMARY_INPUT_CHARS,
}: {
  model: Model;
  locale?: Locale;
  maxInputChars?: number;
}): Summarize {
  const texts = contextTexts(locale);
  return async ({ messages, previous, signal }) => {
    const transcript = cutMiddle(
      [...(previous === undefined ? [] : [`[earlier summary] ${previous}`]), ...messages.map(renderLine)].join('\n'),
      maxInputChars,
    );
    const response = await model.generate({
      messages: [
        { role: 'system', content: texts.summarizerInstructions() },
        { role: 'user', content: transcript },
      ],
      tools: [],
      ...(signal === undefined ? {} : { signal }),
    });
    return { text: (response.message.content ?? '').trim(), usage: response.usage };
  };
}

function renderLine(message: ChatMessage): string {
  switch (message.role) {
    case 'system':
      return `[system] ${message.content}`;
    case 'user':
      return `[user] ${message.content}`;
    case 'tool':
      return `[tool result ${message.tool_call_id}] ${message.content}`;
    case 'assistant': {
      const calls = (message.tool_calls ?? []).map(
        (call) => `[assistant calls ${call.function.name} ${call.id}] ${call.function.arguments}`,
      );
      return [...(message.content ? [`[assistant] ${message.content}`] : []), ...calls].join('\n');
    }
  }
}
