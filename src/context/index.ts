export { countTokens, countToolSpecTokens, TOOL_SPEC_OVERHEAD_TOKENS } from './count-tokens.js';
