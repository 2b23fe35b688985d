import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-message.js';
import { groupMessageUnits, isCleanCut, toolPairingProblems } from './message-units.js';

const conversation: ChatMessage[] = [
  { role: 'user', content: 'Two orders please' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'a', type: 'function', function: { name: 'query_order', arguments: '{}' } },
      { id: 'b', type: 'function', function: { name: 'query_order', arguments: '{}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'a', content: '{}' },
  { role: 'tool', tool_call_id: 'b', content: '{}' },
  { role: 'assistant', content: 'Both shipped.' },
];

describe('groupMessageUnits', () => {
  it('keeps an assistant message with the tool messages answering it', () => {
    expect(groupMessageUnits(conversation).map((unit) => [unit.start, unit.messages.length])).toEqual([
      [0, 1],
      [1, 3],
      [4, 1],
    ]);
  });
});

describe('isCleanCut', () => {
  it('accepts cuts between units and refuses cuts inside one', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((index) => isCleanCut(conversation, index))).toEqual([
      true,
      true,
      false,
      false,
      true,
      true,
      false,
    ]);
  });
});

describe('toolPairingProblems', () => {
  it('finds a tool message without its call, a call answered twice, and a call left unanswered', () => {
    const broken: ChatMessage[] = [
      { role: 'tool', tool_call_id: 'x', content: '{}' },
      ...conversation.slice(0, 3),
      { role: 'tool', tool_call_id: 'a', content: '{}' },
      { role: 'assistant', content: 'done' },
    ];
    expect(toolPairingProblems(broken)).toEqual([
      'message 0: tool message x follows no tool call',
      'message 2: call a answered 2 times',
      'message 2: call b has no answer',
    ]);
    expect(toolPairingProblems(conversation)).toEqual([]);
  });
});
