import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../events/agent-event.js';
import { EventBus } from '../events/event-bus.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { runAgent } from './run-agent.js';
import { calls, sequenceModel } from './test-support/sequence-model.js';

describe('runAgent with many synchronous calls in one answer', () => {
  it('lets a subscriber with a small queue keep up: no event dropped, every tool:end delivered', async () => {
    // Reversible calls run one after another; a synchronous tool and the in-memory journal settle each at once.
    const registry = new ToolRegistry().register(
      defineTool<{ n: number }>({
        name: 'add_note',
        description: 'Adds a note: a synchronous test tool.',
        parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        sideEffect: 'reversible',
        progress: { en: 'Adding a note…' },
        execute: ({ n }) => ({ n }),
        undo: () => undefined,
      }),
    );
    const batch = Array.from({ length: 60 }, (_, index): [string, unknown] => ['add_note', { n: index }]);
    const events = new EventBus();
    const ends: AgentEvent[] = [];
    const subscription = events.subscribe(
      (event) => {
        if (event.type === 'tool:end') ends.push(event);
      },
      { queueSize: 32 },
    );
    const result = await runAgent({
      model: sequenceModel([calls(...batch), { role: 'assistant', content: 'Done.' }]),
      tools: registry,
      events,
      messages: [{ role: 'user', content: 'Sixty notes, please.' }],
      limits: { maxSteps: 3 },
    });
    await subscription.idle();
    expect(result.stopReason).toBe('completed');
    expect(subscription.stats().dropped).toBe(0);
    expect(ends).toHaveLength(60);
  });
});
