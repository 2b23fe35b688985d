import { isRecord } from '../../util/is-record.js';
import type { SpecStreamPart } from './language-model-spec.js';

/**
 * The stream parts a `doGenerate` result stands for, so that one assembler
 * reads both ways of calling a model: each text part as a `text-delta`, each
 * reasoning part as a `reasoning-delta` (a block of its own, its provider
 * metadata kept), each `tool-call` as it is, then `finish` with the result's
 * usage and finish reason. Content of other types (files, sources, calls the
 * provider ran itself) passes through, and the assembler ignores what it
 * ignores in a stream.
 *
 * @example
 * const parts = generateResultParts(await languageModel.doGenerate(options));
 * for (const part of parts) assembler.push(part);
 */
export function generateResultParts(result: unknown): SpecStreamPart[] {
  const fields = isRecord(result) ? result : {};
  const content = Array.isArray(fields['content']) ? fields['content'] : [];
  const parts: SpecStreamPart[] = [];
  content.forEach((part: unknown, index) => {
    if (!isRecord(part) || typeof part['type'] !== 'string') return;
    const id = `generated-${index}`;
    const metadata = part['providerMetadata'] === undefined ? {} : { providerMetadata: part['providerMetadata'] };
    const type = part['type'] === 'text' ? 'text-delta' : part['type'] === 'reasoning' ? 'reasoning-delta' : undefined;
    const delta = { type, id, delta: part['text'], ...metadata };
    parts.push(type === undefined ? (part as unknown as SpecStreamPart) : (delta as SpecStreamPart));
  });
  parts.push({ type: 'finish', usage: fields['usage'], finishReason: fields['finishReason'] } as SpecStreamPart);
  return parts;
}
