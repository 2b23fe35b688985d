import type { LocalChatWrapper, LocalRuntime } from './local-runtime.js';

/**
 * Makes a Qwen chat template put a tool result that is text into the prompt
 * as that text, as Qwen's own (Jinja) template does (`<tool_response>` then
 * the message content as is). node-llama-cpp's Qwen wrapper writes every
 * result as JSON, so a text result became a JSON string: quoted, its line
 * breaks `\n` and its quotes `\"`, arbiter's refusal and its valid example
 * included. Results that are not text, and other templates, are rendered as
 * the wrapper renders them. Returns the same wrapper.
 *
 * @example
 * const chatWrapper = toolResultsAsText({ chatWrapper: runtime.resolveChatWrapper(model), runtime });
 */
export function toolResultsAsText({
  chatWrapper,
  runtime,
}: {
  chatWrapper: LocalChatWrapper;
  runtime: Pick<LocalRuntime, 'LlamaText'>;
}): LocalChatWrapper {
  if (chatWrapper.wrapperName !== 'Qwen') return chatWrapper;
  const rendered = chatWrapper.generateFunctionCallResult.bind(chatWrapper);
  const { prefix, suffix } = chatWrapper.settings.functions.result;
  chatWrapper.generateFunctionCallResult = (name, params, result) =>
    typeof result === 'string' ? runtime.LlamaText([prefix, result, suffix]) : rendered(name, params, result);
  return chatWrapper;
}
