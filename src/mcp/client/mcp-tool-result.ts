import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Locale } from '../../core/locale.js';
import { RetryableToolError } from '../../errors/retryable-tool-error.js';
import { mcpTexts } from './mcp-texts.js';

/** Characters of a server's error text passed to the model. */
const maxErrorChars = 1000;

/** What a successful MCP call gives the model, when it is more than text. */
export interface McpToolData {
  /** The text blocks, joined; left out when it only repeats `structuredContent`. */
  readonly text?: string;
  /** The tool's `structuredContent`, as the server sent it (checked against its `outputSchema` by the client). */
  readonly structuredContent?: unknown;
  /** One line per image, audio, resource or link block: what it is, never its data. */
  readonly attachments?: readonly string[];
}

/**
 * Turns a `tools/call` result into a tool outcome: `isError` throws a
 * `RetryableToolError` carrying the server's text (cut to 1,000
 * characters), so the model may fix its arguments; otherwise the text
 * (left out when it repeats `structuredContent`), `structuredContent` kept as sent, images, audio and resources summarised
 * in a line each. A result that is text only comes back as that string.
 * The loop then truncates it like any tool's output.
 *
 * @example
 * mcpToolResult({ result: { content: [{ type: 'text', text: 'hi' }] }, server: 'everything', locale: 'en' }); // 'hi'
 */
export function mcpToolResult({
  result,
  server,
  locale,
}: {
  result: CallToolResult;
  server: string;
  locale: Locale;
}): string | McpToolData {
  const content = result.content;
  // The common answer, one text block and nothing else: that text, as the loop below would join it.
  if (result.isError !== true && result.structuredContent === undefined && content?.length === 1) {
    const [only] = content;
    if (only?.type === 'text') return only.text;
  }
  const texts = mcpTexts(locale);
  const lines: string[] = [];
  const attachments: string[] = [];
  for (const block of content ?? []) {
    switch (block.type) {
      case 'text':
        lines.push(block.text);
        break;
      case 'image':
      case 'audio':
        attachments.push(texts.media({ kind: block.type, mimeType: block.mimeType, bytes: base64Bytes(block.data) }));
        break;
      case 'resource': {
        const resource = block.resource;
        const chars =
          'text' in resource && typeof resource.text === 'string'
            ? resource.text.length
            : 'blob' in resource && typeof resource.blob === 'string'
              ? base64Bytes(resource.blob)
              : 0;
        attachments.push(texts.resource({ uri: resource.uri, mimeType: resource.mimeType, chars }));
        break;
      }
      case 'resource_link':
        attachments.push(texts.resourceLink({ uri: block.uri, name: block.name }));
        break;
      default:
        attachments.push(texts.unknownBlock({ type: String((block as { type?: unknown }).type) }));
    }
  }
  const text = lines.join('\n');
  if (result.isError === true) {
    const message = text.trim() === '' ? texts.errorWithoutText({ server }) : text;
    throw new RetryableToolError({
      code: 'mcp_tool_error',
      message: message.length > maxErrorChars ? `${message.slice(0, maxErrorChars)}…` : message,
    });
  }
  const structured = result.structuredContent;
  if (structured === undefined && attachments.length === 0) return text;
  const repeatsStructured = structured !== undefined && repeats(text, structured);
  return {
    ...(text === '' || repeatsStructured ? {} : { text }),
    ...(structured === undefined ? {} : { structuredContent: structured }),
    ...(attachments.length === 0 ? {} : { attachments }),
  };
}

/** Whether the text only says again what `structuredContent` holds: its JSON, or one of its string fields. */
function repeats(text: string, structured: unknown): boolean {
  const trimmed = text.trim();
  if (trimmed === JSON.stringify(structured)) return true;
  if (typeof structured !== 'object' || structured === null) return false;
  return Object.values(structured).some((value) => typeof value === 'string' && value.trim() === trimmed);
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
