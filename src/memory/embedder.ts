import { createHash } from 'node:crypto';
import { ConfigurationError } from '../errors/configuration-error.js';
import { InfrastructureError } from '../errors/infrastructure-error.js';
import { searchTerms } from '../util/search-terms.js';

/**
 * Turns texts into vectors for hybrid recall. Pluggable: an
 * OpenAI-compatible embeddings endpoint (`createOpenAiEmbedder`), or the
 * deterministic local one (`createHashingEmbedder`) for tests and offline use.
 *
 * @example
 * const [vector] = await embedder.embed(['prefers green tea']);
 */
export interface Embedder {
  /** Shown in traces and errors, e.g. `text-embedding-3-small`. */
  readonly name: string;
  /** One vector per text, in order. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/**
 * A deterministic local embedder: each search term (see `searchTerms`) is
 * hashed into one of `dimensions` buckets with a sign, and the vector is
 * normalised. Texts sharing words (or Chinese character pairs) point the
 * same way; no model, no network, the same vector every time.
 *
 * @example
 * const embedder = createHashingEmbedder({ dimensions: 256 });
 */
export function createHashingEmbedder({ dimensions = 256 }: { dimensions?: number } = {}): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 2) {
    throw new ConfigurationError({
      setting: 'dimensions',
      message: 'the hashing embedder needs at least 2 dimensions',
    });
  }
  const embedOne = (text: string): number[] => {
    const vector = new Array<number>(dimensions).fill(0);
    for (const term of searchTerms(text)) {
      const digest = createHash('sha256').update(term).digest();
      const bucket = digest.readUInt32BE(0) % dimensions;
      vector[bucket] = (vector[bucket] ?? 0) + ((digest[4] ?? 0) & 1 ? 1 : -1);
    }
    const length = Math.hypot(...vector);
    return length === 0 ? vector : vector.map((value) => value / length);
  };
  return { name: `hashing-${dimensions}`, embed: async (texts) => texts.map(embedOne) };
}

/**
 * An embedder on an OpenAI-compatible `POST {baseUrl}/embeddings` endpoint
 * (OpenAI, Azure-style gateways, vLLM, Ollama's OpenAI API). A failed
 * request is an infrastructure failure (`InfrastructureError`), never a
 * silent fallback.
 *
 * @example
 * const embedder = createOpenAiEmbedder({ baseUrl: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'text-embedding-3-small' });
 */
export function createOpenAiEmbedder({
  baseUrl,
  apiKey,
  model,
  fetch: fetchFunction = fetch,
}: {
  /** Up to and including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  fetch?: typeof fetch;
}): Embedder {
  const url = `${baseUrl.replace(/\/+$/, '')}/embeddings`;
  return {
    name: model,
    embed: async (texts, { signal } = {}) => {
      if (texts.length === 0) return [];
      let body: unknown;
      try {
        const response = await fetchFunction(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
          },
          body: JSON.stringify({ model, input: texts }),
          ...(signal === undefined ? {} : { signal }),
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        body = await response.json();
      } catch (error) {
        throw new InfrastructureError({ message: `the embeddings endpoint ${url} failed`, cause: error });
      }
      const data = (body as { data?: unknown }).data;
      const vectors = Array.isArray(data)
        ? [...data]
            .sort((left, right) => Number(left?.index ?? 0) - Number(right?.index ?? 0))
            .map((entry) => (entry as { embedding?: unknown }).embedding)
        : [];
      if (vectors.length !== texts.length) {
        throw new InfrastructureError({
          message: `the embeddings endpoint answered ${vectors.length} vectors for ${texts.length} texts`,
        });
      }
      if (!vectors.every((vector) => Array.isArray(vector) && vector.every((value) => typeof value === 'number'))) {
        throw new InfrastructureError({
          message: 'the embeddings endpoint answered a vector that is not a list of numbers',
        });
      }
      return vectors as number[][];
    },
  };
}

/**
 * Cosine similarity of two vectors; 0 when either is all zeros or their lengths differ.
 *
 * @example
 * cosineSimilarity([1, 0], [1, 1]); // 0.707…
 */
export function cosineSimilarity(left: readonly number[], right: readonly number[]): number {
  if (left.length !== right.length) return 0;
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index += 1) {
    const a = left[index] ?? 0;
    const b = right[index] ?? 0;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}
