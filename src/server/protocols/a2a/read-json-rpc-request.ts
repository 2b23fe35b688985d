import { A2A_ERROR_CODE, ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { nestingDepth } from '../../../validation/index.js';

/**
 * The deepest nesting of objects and arrays a JSON-RPC request may carry
 * (envelope, params, message, metadata included): deeper requests are
 * refused before the SDK's recursive readers walk them and overflow the stack.
 */
export const maxA2aRequestDepth = 64;

/** A JSON-RPC 2.0 error response, as the A2A JSON-RPC binding answers one. */
export interface JsonRpcErrorAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string; data?: unknown[] };
}

/**
 * The body of a request to the A2A JSON-RPC endpoint, or the JSON-RPC error
 * that answers it, as the A2A JSON-RPC binding (and the SDK's own express
 * handler) answers: a `Content-Type` other than JSON is
 * ContentTypeNotSupportedError (-32005); a body that is not JSON is a parse
 * error (-32700, id null); JSON that is not one request object (an array, a
 * number) or nests deeper than `maxA2aRequestDepth` is an invalid request
 * (-32600, naming the limit). Never arbiter's REST error shape: a JSON-RPC
 * client reads these as errors of its call.
 *
 * @example
 * const read = await readJsonRpcRequest(c);
 * if ('answer' in read) return c.json(read.answer);
 */
export async function readJsonRpcRequest(
  c: Context,
): Promise<{ body: Record<string, unknown>; id: string | number | null } | { answer: JsonRpcErrorAnswer }> {
  const contentType = c.req.header('content-type');
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (contentType !== undefined && mediaType !== 'application/json') {
    const error = new ContentTypeNotSupportedError(
      `Content-Type ${JSON.stringify(contentType.slice(0, 100))} is not supported; send application/json`,
    );
    return { answer: errorAnswer(null, JsonRpcTransportHandler.mapToJSONRPCError(error)) };
  }
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? `: ${error.message}` : '';
    return {
      answer: errorAnswer(null, { code: A2A_ERROR_CODE.PARSE_ERROR, message: `the body is not valid JSON${detail}` }),
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      answer: errorAnswer(null, {
        code: A2A_ERROR_CODE.INVALID_REQUEST,
        message: 'the body must be one JSON-RPC request object (batches are not supported)',
      }),
    };
  }
  const body = value as Record<string, unknown>;
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  if (nestingDepth(body, maxA2aRequestDepth) > maxA2aRequestDepth) {
    return {
      answer: errorAnswer(id, {
        code: A2A_ERROR_CODE.INVALID_REQUEST,
        message: `the request nests objects and arrays more than ${maxA2aRequestDepth} levels deep; at most ${maxA2aRequestDepth} are accepted`,
      }),
    };
  }
  return { body, id };
}

function errorAnswer(id: string | number | null, error: JsonRpcErrorAnswer['error']): JsonRpcErrorAnswer {
  return { jsonrpc: '2.0', id, error };
}
