import { abortableSleep } from '../models/abortable-sleep.js';
import type { Model, ModelRequest, ModelResponse } from '../models/model.js';

export interface StreamingDelay {
  /** Wait before the first fragment, as a model thinks. Default 0. */
  readonly firstTokenMs?: number;
  /** Wait before each further fragment. Default 15. */
  readonly deltaMs?: number;
  /** Longer fragments are cut to this many characters, so text without spaces (Chinese) streams too. Default 8. */
  readonly maxFragmentLength?: number;
}

/**
 * Wraps a model so its text fragments arrive at a human pace: the offline
 * scripted model answers instantly, which a chat page cannot show as
 * streaming. The answer is the inner model's, unchanged; only the timing of
 * `onTextDelta` and of the response moves. An abort during a wait rejects
 * at once.
 *
 * @example
 * const model = withStreamingDelay(new ScriptedModel({ script }), { firstTokenMs: 300, deltaMs: 15 });
 */
export function withStreamingDelay(
  model: Model,
  { firstTokenMs = 0, deltaMs = 15, maxFragmentLength = 8 }: StreamingDelay = {},
): Model {
  return {
    name: model.name,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const fragments: string[] = [];
      const { onTextDelta, ...rest } = request;
      const response = await model.generate({
        ...rest,
        onTextDelta: (text) => fragments.push(...cut(text, maxFragmentLength)),
      });
      await abortableSleep(firstTokenMs, request.signal);
      for (const [index, fragment] of fragments.entries()) {
        if (index > 0) await abortableSleep(deltaMs, request.signal);
        onTextDelta?.(fragment);
      }
      return response;
    },
  };
}

function cut(text: string, length: number): string[] {
  const characters = Array.from(text);
  if (characters.length <= length) return [text];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += length) {
    pieces.push(characters.slice(start, start + length).join(''));
  }
  return pieces;
}
