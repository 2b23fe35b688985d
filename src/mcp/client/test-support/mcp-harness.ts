import { resolve } from 'node:path';
import type { ChatMessage } from '../../../core/chat-message.js';
import type { AgentEvent } from '../../../events/agent-event.js';
import { EventBus } from '../../../events/event-bus.js';
import type { Script } from '../../../models/script.js';
import { ScriptedModel } from '../../../models/scripted-model.js';

/** The reference servers' binaries, installed as devDependencies. */
export const everythingBin = resolve('node_modules/.bin/mcp-server-everything');
export const filesystemBin = resolve('node_modules/.bin/mcp-server-filesystem');
/** The SDK-built fixture server (paginated lists, list changes, hostile schemas, cancellation). */
export const fixtureServer = resolve('test/fixtures/mcp/fixture-server.mjs');

/** A scripted model that makes the given calls in one turn, then says `done`. */
export function scriptedCalls(...calls: readonly { name: string; arguments: unknown }[]): ScriptedModel {
  const script: Script = {
    name: 'mcp',
    turns: [{ steps: [...calls.map((call) => ({ call })), { say: 'done' }] }],
    onUnclearError: 'give_up',
  };
  return new ScriptedModel({ script });
}

/** An event bus that keeps what it carried. */
export function recordingBus(): { events: EventBus; seen: AgentEvent[] } {
  const events = new EventBus();
  const seen: AgentEvent[] = [];
  events.subscribe((event) => {
    seen.push(event);
  });
  return { events, seen };
}

/** The tool messages of a conversation, in order. */
export function toolMessages(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) => (message.role === 'tool' ? [message.content] : []));
}
