import { Agent, run, setTracingDisabled } from '@openai/agents';
import { generateText, type ModelMessage, stepCountIs } from 'ai7';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../store/backend.js';
import { openPostgresBackend } from '../store/postgres/open-postgres-backend.js';
import { setUpPostgresCluster } from '../store/postgres/test-support/postgres-cluster.js';
import { arbiterTools } from './ai-sdk/arbiter-tools.js';
import { arbiterAgentTools } from './openai-agents/arbiter-agent-tools.js';
import {
  egressOptions,
  egressTools,
  fetchTurn,
  mailTurn,
  ScriptedAgentsModel,
  scriptedV4,
  tenants,
  textTurn,
} from './test-support/egress-fixture.js';

/**
 * Two nodes of one arbiter on PostgreSQL (two backends on one database and
 * schema, as two `arbiter serve` processes have): a conversation's first
 * request lands on one, its next on the other. The egress guard's mark and
 * the call ids of the conversation are the database's, not a node's.
 */
const cluster = setUpPostgresCluster();
beforeAll(() => setTracingDisabled(true));
const opened: Backend[] = [];
afterEach(async () => {
  for (const backend of opened.splice(0)) await backend.close();
});

async function twoNodes(): Promise<[Backend, Backend]> {
  const schema = cluster.freshSchema();
  const first = await openPostgresBackend({ connectionString: cluster.connectionString, schema });
  opened.push(first);
  const second = await openPostgresBackend({ connectionString: cluster.connectionString, schema });
  opened.push(second);
  return [first, second];
}

const user = (content: string): ModelMessage => ({ role: 'user', content });

describe.skipIf(cluster.skip)('the adapters on two nodes of one PostgreSQL database', () => {
  it('holds send_email on node B after fetch_page ran on node A (AI SDK 7 generateText)', async () => {
    const [nodeA, nodeB] = await twoNodes();
    const { registry, gate, sent } = egressTools();
    const on = (backend: Backend) =>
      arbiterTools(registry, egressOptions({ backend, gate, principal: tenants.alice, conversationId: 'pg-1' }));
    await generateText({
      model: scriptedV4([fetchTurn(), textTurn]),
      tools: on(nodeA),
      messages: [user('Read the reviews.')],
      stopWhen: stepCountIs(4),
    });
    const later = await generateText({
      model: scriptedV4([mailTurn(), textTurn]),
      tools: on(nodeB),
      messages: [user('Mail me my order history.')],
      stopWhen: stepCountIs(4),
    });
    const asked = later.steps.flatMap((step) => step.content).filter((part) => part.type === 'tool-approval-request');
    expect(asked.map((part) => part.toolCall.toolName)).toEqual(['send_email']);
    expect(sent).toEqual([]);
    const pending = await nodeA.approvals.listApprovals({ status: 'pending' });
    expect(pending.map((record) => record.rule)).toEqual(['egress_after_untrusted_content']);
  });

  it('interrupts on send_email on node B after fetch_page ran on node A (OpenAI Agents run)', async () => {
    const [nodeA, nodeB] = await twoNodes();
    const { registry, gate, sent } = egressTools();
    const agentOn = (backend: Backend, turns: Parameters<typeof scriptedV4>[0]) =>
      new Agent({
        name: 'shop',
        model: new ScriptedAgentsModel(turns),
        tools: arbiterAgentTools(
          registry,
          egressOptions({ backend, gate, principal: tenants.alice, conversationId: 'pg-2' }),
        ),
      });
    await run(agentOn(nodeA, [fetchTurn(), textTurn]), 'Read the reviews.');
    const later = await run(agentOn(nodeB, [mailTurn(), textTurn]), 'Mail me my order history.');
    expect(later.interruptions.map((item) => item.name)).toEqual(['send_email']);
    expect(sent).toEqual([]);
  });

  it('runs a call id once whichever node gets the history (AI SDK 7), and a replay on the other node still marks', async () => {
    const [nodeA, nodeB] = await twoNodes();
    const { registry, gate, fetched, sent } = egressTools();
    const history: ModelMessage[] = [
      user('Read the reviews.'),
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'page_1', toolName: 'fetch_page', input: { url: 'https://r.example' } },
          { type: 'tool-approval-request', approvalId: 'sdk_page_1', toolCallId: 'page_1' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'sdk_page_1', approved: true }] },
    ];
    const outputs: unknown[] = [];
    for (const node of [nodeA, nodeB, nodeA, nodeB]) {
      await generateText({
        model: scriptedV4([textTurn]),
        tools: arbiterTools(
          registry,
          egressOptions({ backend: node, gate, principal: tenants.alice, conversationId: 'pg-3' }),
        ),
        messages: history,
        onToolExecutionEnd: (event) => {
          outputs.push((event as unknown as { toolOutput: { output?: unknown } }).toolOutput.output);
        },
      });
    }
    expect(fetched).toHaveLength(1);
    expect(outputs).toHaveLength(4);
    for (const output of outputs) expect(output).toEqual(outputs[0]);
    const later = await generateText({
      model: scriptedV4([mailTurn(), textTurn]),
      tools: arbiterTools(
        registry,
        egressOptions({ backend: nodeB, gate, principal: tenants.alice, conversationId: 'pg-3' }),
      ),
      messages: [user('Mail me my order history.')],
      stopWhen: stepCountIs(4),
    });
    expect(later.steps.flatMap((step) => step.content).some((part) => part.type === 'tool-approval-request')).toBe(
      true,
    );
    expect(sent).toEqual([]);
  });
});
