import type { CallToolResult, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { isRecord } from '../../util/is-record.js';

/** Keys of another result family: a body carrying one is no `tools/call` answer without its `content`. */
const foreignFamilyKeys = ['task', 'inputRequests', 'requestState'] as const;

/** The check's verdict: the result, with `content: []` where the server left it out, or what is wrong with it. */
export type CheckedCallToolResult =
  | { readonly ok: true; readonly result: CallToolResult }
  | { readonly ok: false; readonly problem: string };

/**
 * Checks a `tools/call` result as it came from a server (after the SDK's
 * wire codec) against what arbiter reads of it: an object; `content` an
 * array of blocks, each an object with a string `type`, and the fields its
 * type needs as strings (`text`; `data` and `mimeType` of an image or
 * audio block; `resource.uri` and its `text` or `blob`; a link's `uri` and
 * `name`); `structuredContent` an object; `isError` a boolean. A block of
 * a type it does not know passes: the client summarises it in a line. A
 * result without `content` gets an empty one, unless it carries another
 * result family's keys. Everything else in the result is left as it is.
 *
 * @example
 * checkCallToolResult({ content: [{ type: 'text' }] }); // { ok: false, problem: 'content[0].text is not a string' }
 */
export function checkCallToolResult(value: unknown): CheckedCallToolResult {
  if (!isRecord(value)) return { ok: false, problem: 'the result is not an object' };
  let content = value['content'];
  if (content === undefined) {
    const foreign = foreignFamilyKeys.find((key) => key in value);
    if (foreign !== undefined) return { ok: false, problem: `the result has no content and carries "${foreign}"` };
    content = [];
  }
  if (!Array.isArray(content)) return { ok: false, problem: 'content is not an array' };
  for (let index = 0; index < content.length; index += 1) {
    const problem = blockProblem(content[index]);
    if (problem !== undefined) return { ok: false, problem: `content[${index}]${problem}` };
  }
  const structured = value['structuredContent'];
  if (structured !== undefined && !isRecord(structured))
    return { ok: false, problem: 'structuredContent is not an object' };
  const isError = value['isError'];
  if (isError !== undefined && typeof isError !== 'boolean') return { ok: false, problem: 'isError is not a boolean' };
  const result = (content === value['content'] ? value : { ...value, content }) as CallToolResult;
  return { ok: true, result };
}

/**
 * A Standard Schema for the SDK's `request()` that passes any result on
 * unchanged: arbiter checks it itself (`checkCallToolResult`), so a broken
 * answer is told to the model like any tool's refusal instead of failing
 * inside the SDK.
 */
export const uncheckedCallToolResult: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'arbiter', validate: (value) => ({ value }) },
};

/** What is wrong with one content block (a path suffix and the problem), or undefined. */
function blockProblem(block: unknown): string | undefined {
  if (!isRecord(block)) return ' is not an object';
  const type = block['type'];
  if (typeof type !== 'string') return '.type is not a string';
  switch (type) {
    case 'text':
      return stringProblem(block, 'text');
    case 'image':
    case 'audio':
      return stringProblem(block, 'data') ?? stringProblem(block, 'mimeType');
    case 'resource': {
      const resource = block['resource'];
      if (!isRecord(resource)) return '.resource is not an object';
      const problem = stringProblem(resource, 'uri');
      if (problem !== undefined) return `.resource${problem}`;
      if (typeof resource['text'] !== 'string' && typeof resource['blob'] !== 'string') {
        return '.resource has neither a string text nor a string blob';
      }
      return undefined;
    }
    case 'resource_link':
      return stringProblem(block, 'uri') ?? stringProblem(block, 'name');
    default:
      return undefined;
  }
}

function stringProblem(record: Record<string, unknown>, key: string): string | undefined {
  return typeof record[key] === 'string' ? undefined : `.${key} is not a string`;
}
