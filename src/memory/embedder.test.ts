import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InfrastructureError } from '../errors/infrastructure-error.js';
import { cosineSimilarity, createHashingEmbedder, createOpenAiEmbedder } from './embedder.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A local OpenAI-compatible embeddings endpoint answering with `answer(body)`, recording each request. */
async function embeddingsServer(
  answer: (body: { model: string; input: string[] }) => { status: number; body: unknown },
) {
  const requests: { path: string | undefined; authorization: string | undefined; body: unknown }[] = [];
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      const body = JSON.parse(text) as { model: string; input: string[] };
      requests.push({ path: request.url, authorization: request.headers.authorization, body });
      const { status, body: reply } = answer(body);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1/`, requests };
}

describe('embedders', () => {
  it('hashing embedder: deterministic, normalised, nearer for texts sharing words (Chinese too)', async () => {
    const embedder = createHashingEmbedder({ dimensions: 128 });
    const [tea, teaAgain, sugarTea, shoes, shanghai, liveShanghai] = await embedder.embed([
      'green tea',
      'green tea',
      'green tea no sugar',
      'running shoes size 42',
      '上海',
      '我住在上海市',
    ]);
    expect(tea).toEqual(teaAgain);
    expect(Math.hypot(...(tea ?? []))).toBeCloseTo(1, 10);
    expect(cosineSimilarity(tea ?? [], sugarTea ?? [])).toBeGreaterThan(cosineSimilarity(tea ?? [], shoes ?? []));
    expect(cosineSimilarity(shanghai ?? [], liveShanghai ?? [])).toBeGreaterThan(0.3);
    expect(cosineSimilarity([1, 0], [0, 0])).toBe(0);
    expect(cosineSimilarity([1, 0], [1, 0, 0])).toBe(0);
  });

  it('OpenAI-compatible embedder: posts model and inputs with the key, and orders vectors by index', async () => {
    const { baseUrl, requests } = await embeddingsServer(({ input }) => ({
      status: 200,
      body: {
        object: 'list',
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, index] })).reverse(),
      },
    }));
    const embedder = createOpenAiEmbedder({ baseUrl, apiKey: 'sk-test', model: 'text-embedding-3-small' });
    expect(await embedder.embed(['tea', 'green tea'])).toEqual([
      [3, 0],
      [9, 1],
    ]);
    expect(await embedder.embed([])).toEqual([]);
    expect(requests).toEqual([
      {
        path: '/v1/embeddings',
        authorization: 'Bearer sk-test',
        body: { model: 'text-embedding-3-small', input: ['tea', 'green tea'] },
      },
    ]);
  });

  it('OpenAI-compatible embedder: an HTTP error or a short answer is an infrastructure failure, never a silent fallback', async () => {
    let reply: { status: number; body: unknown } = { status: 503, body: { error: { message: 'overloaded' } } };
    const { baseUrl } = await embeddingsServer(() => reply);
    const embedder = createOpenAiEmbedder({ baseUrl, model: 'm' });
    const failure = async () => {
      try {
        await embedder.embed(['tea', 'coffee']);
      } catch (error) {
        return InfrastructureError.isInstance(error) ? error.message : `other: ${String(error)}`;
      }
      return 'no error';
    };
    expect(await failure()).toBe(`the embeddings endpoint ${baseUrl.replace(/\/+$/, '')}/embeddings failed`);
    reply = { status: 200, body: { data: [{ index: 0, embedding: [1, 2] }] } };
    expect(await failure()).toBe('the embeddings endpoint answered 1 vectors for 2 texts');
    reply = {
      status: 200,
      body: {
        data: [
          { index: 0, embedding: ['x'] },
          { index: 1, embedding: [1] },
        ],
      },
    };
    expect(await failure()).toBe('the embeddings endpoint answered a vector that is not a list of numbers');
  });
});
