import { describe, expect, it } from 'vitest';
import { createTextStreamer } from './text-streamer.js';

describe('createTextStreamer', () => {
  it('streams prose and stops at a call marker split across chunks', () => {
    const seen: string[] = [];
    const streamer = createTextStreamer({ markers: ['<tool_call>'], onText: (text) => seen.push(text) });
    for (const chunk of ['Let me ', 'look. <tool_', 'call>{"name"', '}</tool_call>']) streamer.push(chunk);
    streamer.end();
    expect(seen.join('')).toBe('Let me look. ');
  });

  it('hands over the held-back tail at the end of an answer without a call', () => {
    const seen: string[] = [];
    const streamer = createTextStreamer({ markers: ['<tool_call>'], onText: (text) => seen.push(text) });
    streamer.push('Shipped <tool');
    streamer.end();
    expect(seen.join('')).toBe('Shipped <tool');
  });
});
