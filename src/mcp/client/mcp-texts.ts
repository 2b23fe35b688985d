import type { Locale } from '../../core/locale.js';

/** The model-facing sentences the MCP client writes in place of what it does not pass on. */
export interface McpTexts {
  /** An image or audio block, described instead of its base64 data. */
  media(request: { kind: 'image' | 'audio'; mimeType: string; bytes: number }): string;
  /** An embedded resource, described instead of its contents. */
  resource(request: { uri: string; mimeType: string | undefined; chars: number }): string;
  /** A link to a resource the server offers. */
  resourceLink(request: { uri: string; name: string }): string;
  /** A content block of a kind this client does not know. */
  unknownBlock(request: { type: string }): string;
  /** `isError` with no text. */
  errorWithoutText(request: { server: string }): string;
  /** A principal the config gives no credentials for, on a per-user server. */
  noCredentials(request: { server: string }): string;
  /** `structuredContent` that breaks the tool's own `outputSchema`. */
  invalidOutput(request: { server: string }): string;
  /** A result that is not a `tools/call` result (`problem` says where, in English). */
  invalidResult(request: { server: string; problem: string }): string;
  /** A call reaching a tool the server redefined since the call was checked (and perhaps approved). */
  toolChanged(request: { server: string }): string;
}

const english: McpTexts = {
  media: ({ kind, mimeType, bytes }) => `[${kind} ${mimeType}, ${size(bytes)}, not shown]`,
  resource: ({ uri, mimeType, chars }) =>
    `[resource ${uri}${mimeType === undefined ? '' : ` (${mimeType})`}, ${size(chars)}, not shown]`,
  resourceLink: ({ uri, name }) => `[resource link "${name}": ${uri}]`,
  unknownBlock: ({ type }) => `[content of type "${type}", not shown]`,
  errorWithoutText: ({ server }) => `The MCP server "${server}" reported an error without saying what went wrong.`,
  noCredentials: ({ server }) =>
    `This tool of "${server}" needs the user's own credentials, and none are configured for this user. Tell the user it is not available to them.`,
  invalidOutput: ({ server }) =>
    `The MCP server "${server}" answered with a result that does not match its own output schema; the result was not used.`,
  invalidResult: ({ server, problem }) =>
    `The MCP server "${server}" sent a malformed result (${cut(problem)}); the result was not used.`,
  toolChanged: ({ server }) =>
    `The MCP server "${server}" changed this tool after the call was checked, so the call was not sent; a person must look at the changed tool again. Tell the user.`,
};

const chinese: McpTexts = {
  media: ({ kind, mimeType, bytes }) => `[${kind === 'image' ? '图片' : '音频'} ${mimeType}，${size(bytes)}，未显示]`,
  resource: ({ uri, mimeType, chars }) =>
    `[资源 ${uri}${mimeType === undefined ? '' : `（${mimeType}）`}，${size(chars)}，未显示]`,
  resourceLink: ({ uri, name }) => `[资源链接「${name}」：${uri}]`,
  unknownBlock: ({ type }) => `[类型为 "${type}" 的内容，未显示]`,
  errorWithoutText: ({ server }) => `MCP 服务器「${server}」报告了错误，但没有说明原因。`,
  noCredentials: ({ server }) =>
    `「${server}」的这个工具需要用户本人的凭据，而当前用户没有配置凭据。请告诉用户此功能对其不可用。`,
  invalidOutput: ({ server }) => `MCP 服务器「${server}」返回的结果不符合其自身的输出结构，结果未被采用。`,
  invalidResult: ({ server, problem }) =>
    `MCP 服务器「${server}」返回的结果格式错误（${cut(problem)}），结果未被采用。`,
  toolChanged: ({ server }) =>
    `MCP 服务器“${server}”在这次调用通过检查之后修改了该工具，调用未发送；需要有人重新审查修改后的工具。请告诉用户。`,
};

/**
 * The MCP client's model-facing texts in a language.
 *
 * @example
 * mcpTexts('en').media({ kind: 'image', mimeType: 'image/png', bytes: 1530 }); // '[image image/png, 1.5 KB, not shown]'
 */
export function mcpTexts(locale: Locale): McpTexts {
  return locale === 'zh-CN' ? chinese : english;
}

/** A problem's description as passed on: the SDK's can quote a whole result. */
function cut(problem: string): string {
  return problem.length > 200 ? `${problem.slice(0, 200)}…` : problem;
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
