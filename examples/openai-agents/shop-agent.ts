/**
 * @module
 * OpenAI Agents with arbiter's tools: the README's "arbiter's gate inside
 * OpenAI Agents" snippet, typechecked. The run stops with an interruption
 * when the gate holds a call for a person; approving it in the program runs
 * nothing until staff approve arbiter's approval (`POST /v1/approvals/:id`).
 */
import { createTierGate, type Principal, ToolRegistry } from '@arbiter-runtime/core';
import { arbiterAgentTools } from '@arbiter-runtime/core/openai-agents';
import { createServer } from '@arbiter-runtime/core/server';
import { SqliteAuditLog, SqliteIdempotencyStore } from '@arbiter-runtime/core/sqlite';
import { Agent, type AgentInputItem, type Model, run } from '@openai/agents';
import { openShopDatabase } from '../shop/shop-database.js';
import { createShopTools, shopGateRules } from '../shop/shop-tools.js';

/**
 * The shop's agent for one customer's thread, and one turn of it.
 *
 * @example
 * const shop = openShopAgents({ dataDir: '.arbiter', model: 'gpt-5-mini' });
 * const turn = await shop.turn({ principal, threadId: 't1', input: 'Refund 80 yuan on SO20260902, the mug was chipped.' });
 * // turn.waiting: arbiter approval ids staff decide; ask again once they did, and the call runs once.
 */
export function openShopAgents({ dataDir, model }: { dataDir: string; model: string | Model }) {
  const database = openShopDatabase({ path: ':memory:' });
  const definitions = createShopTools({ database });
  const registry = new ToolRegistry();
  for (const definition of definitions) registry.register(definition);
  const gate = createTierGate({ rules: shopGateRules, tools: registry });
  const arbiter = createServer({ dataDir, tools: definitions, gateRules: shopGateRules });
  const audit = new SqliteAuditLog({ database: arbiter.store.database });
  const idempotency = new SqliteIdempotencyStore({ database: arbiter.store.database });

  async function turn({
    principal,
    threadId,
    input,
  }: {
    principal: Principal;
    threadId: string;
    input: string | AgentInputItem[];
  }) {
    const waiting: string[] = [];
    const agent = new Agent({
      name: 'shop',
      instructions: 'You are the customer service assistant of an online shop. Use the tools; never guess.',
      model,
      tools: arbiterAgentTools(registry, {
        principal,
        conversationId: threadId,
        gate,
        approvals: arbiter.approvals,
        runs: arbiter.runs,
        idempotency,
        audit,
        onApprovalRequired: (approval) => waiting.push(approval.approvalId),
      }),
    });
    const result = await run(agent, input);
    // The interruptions are arbiter's approvals: the program does not decide them (approving here runs nothing).
    return { output: result.finalOutput, history: result.history, interruptions: result.interruptions, waiting };
  }

  return { turn, arbiter, close: () => Promise.all([arbiter.close(), database.close()]) };
}
