import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai6';

/**
 * Every chunk of a stream (the AI SDK's transport has checked each against
 * the protocol's schema).
 *
 * @example
 * const chunks = await chunksOf(await transport.sendMessages({ … }));
 */
export async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
  return chunks;
}

/**
 * The message the AI SDK's own reader builds from `chunks` (continuing
 * `message` when given); an error chunk throws.
 *
 * @example
 * const reply = await messageOf(chunks);
 */
export async function messageOf(chunks: readonly UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({
    stream,
    ...(message === undefined ? {} : { message }),
    terminateOnError: true,
  })) {
    last = snapshot;
  }
  if (last === undefined) throw new Error('the stream built no message');
  return last;
}
