export { loadLocalRuntime } from './load-local-runtime.js';
export { LocalModel, type LocalModelOptions } from './local-model.js';
export { type CallSyntax, type ParsedOutput, type ParsedToolCall, parseToolCalls } from './parse-tool-calls.js';
