import { describe, expect, it } from 'vitest';
import { countMessageTokens } from './count-message-tokens.js';
import { countTokens } from './count-tokens.js';

describe('countMessageTokens', () => {
  it('counts the thinking an assistant message carries, which goes back to the provider with it', () => {
    const answer = { role: 'assistant', content: 'It has shipped.' } as const;
    const thinking = 'The order was placed on the first; the courier scanned it twice since.';
    const withThinking = countMessageTokens({ ...answer, thinking: [{ text: thinking }] });
    expect(withThinking - countMessageTokens(answer)).toBe(countTokens(thinking));
  });
});
