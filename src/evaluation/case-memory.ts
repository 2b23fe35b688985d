import type Database from 'better-sqlite3';
import { withRecalledFacts } from '../context/recalled-facts.js';
import type { ChatMessage } from '../core/chat-message.js';
import { createMemoryTools } from '../memory/create-memory-tools.js';
import { recallMemory } from '../memory/recall-memory.js';
import { SqliteMemoryStore } from '../store/sqlite/sqlite-memory-store.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { EvalCase } from './eval-case.js';

const day = 24 * 60 * 60 * 1000;

/** A case's long-term memory: its tools, and the step that pins recalled facts before a turn. */
export interface OpenedCaseMemory {
  /** Registers `save_fact` and `recall_facts`. */
  register(registry: ToolRegistry): void;
  /** The turn's messages with the principal's facts recalled for `query` pinned (unchanged when `pin` is off). */
  pin(messages: readonly ChatMessage[], query: string): Promise<ChatMessage[]>;
}

/**
 * Opens the memory of a case that has one (`evalCase.memory`), on the
 * case's database: stores its seeded facts (each with its age and
 * validity, on a clock set back for the save), and builds `save_fact` and
 * `recall_facts` whose trust check reads the turn's conversation.
 *
 * @example
 * const memory = await openCaseMemory({ evalCase, database: store.database, conversation: () => messages });
 */
export async function openCaseMemory({
  evalCase,
  database,
  conversation,
}: {
  evalCase: EvalCase;
  database: Database.Database;
  conversation: () => readonly ChatMessage[];
}): Promise<OpenedCaseMemory | undefined> {
  const settings = evalCase.memory;
  if (settings === undefined) return undefined;
  let offset = 0;
  const memory = new SqliteMemoryStore({ database, now: () => Date.now() - offset });
  const principal = evalCase.principal;
  for (const fact of settings.facts ?? []) {
    offset = (fact.savedDaysAgo ?? 0) * day;
    const from = fact.from ?? 'user';
    memory.save({
      tenantId: fact.tenantId ?? principal?.tenantId ?? '',
      userId: fact.userId ?? principal?.userId ?? '',
      key: fact.key,
      value: fact.value,
      source: { kind: from },
      trusted: from === 'user',
      ...(fact.validDays === undefined ? {} : { expiresAt: Date.now() - offset + fact.validDays * day }),
    });
  }
  offset = 0;
  const tools = createMemoryTools({ memory, conversation: () => conversation(), locale: evalCase.locale });
  return {
    register: (registry) => {
      for (const tool of tools) registry.register(tool);
    },
    pin: async (messages, query) => {
      if (settings.pin === false || principal === undefined) return [...messages];
      const recalled = await recallMemory({ memory, owner: principal, query, limit: 5 });
      return withRecalledFacts({ messages, facts: recalled.map((entry) => entry.fact), locale: evalCase.locale });
    },
  };
}
