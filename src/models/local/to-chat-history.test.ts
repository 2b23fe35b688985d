import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import { toChatHistory } from './to-chat-history.js';

const call = (id: string, name: string) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: '{"order_id":"20260903"}' },
});

describe('toChatHistory', () => {
  it('opens an empty model turn after the user, for the answer', () => {
    expect(toChatHistory({ messages: [{ role: 'user', content: 'hi' }] })).toEqual([
      { type: 'user', text: 'hi' },
      { type: 'model', response: [] },
    ]);
  });

  it('ends in the turn of the calls when the conversation ends in their results: no empty turn between', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Track 20260903' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'track_shipment')] },
      { role: 'tool', tool_call_id: 'c1', content: 'not run: order_id' },
    ];
    const history = toChatHistory({ messages });
    expect(history).toEqual([
      { type: 'user', text: 'Track 20260903' },
      {
        type: 'model',
        response: [
          {
            type: 'functionCall',
            name: 'track_shipment',
            params: { order_id: '20260903' },
            result: 'not run: order_id',
            startsNewChunk: true,
          },
        ],
      },
    ]);
  });

  it('keeps the calls of one message in one section and starts a section for each later message', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Where is 20260903?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('c1', 'query_order'), call('c2', 'track_shipment')],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'paid' },
      { role: 'tool', tool_call_id: 'c2', content: 'shipped' },
      { role: 'assistant', content: null, tool_calls: [call('c3', 'query_order')] },
      { role: 'tool', tool_call_id: 'c3', content: 'paid' },
    ];
    const [, turn] = toChatHistory({ messages });
    expect(
      turn?.type === 'model'
        ? turn.response.map((item) => typeof item !== 'string' && item.startsNewChunk === true)
        : [],
    ).toEqual([true, false, true]);
  });

  it('joins what the model says after tool results to the turn of its calls, and opens a new turn after the user', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Track 20260903' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'track_shipment')] },
      { role: 'tool', tool_call_id: 'c1', content: 'refused' },
      { role: 'assistant', content: null, tool_calls: [call('c2', 'track_shipment')] },
      { role: 'tool', tool_call_id: 'c2', content: 'shipped' },
      { role: 'assistant', content: 'It has shipped.' },
      { role: 'user', content: 'Thanks' },
    ];
    const history = toChatHistory({ messages });
    expect(history.map((item) => item.type)).toEqual(['user', 'model', 'user', 'model']);
    expect(history[1]).toEqual({
      type: 'model',
      response: [
        {
          type: 'functionCall',
          name: 'track_shipment',
          params: { order_id: '20260903' },
          result: 'refused',
          startsNewChunk: true,
        },
        {
          type: 'functionCall',
          name: 'track_shipment',
          params: { order_id: '20260903' },
          result: 'shipped',
          startsNewChunk: true,
        },
        'It has shipped.',
      ],
    });
  });
});
