import { describe, expect, it } from 'vitest';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { defineTool } from '../tools/define-tool.js';
import type { EvalCase } from './eval-case.js';
import type { EvalToolkitFactory } from './eval-toolkit.js';
import { runEvalCase } from './run-eval-case.js';

/** A tiny application: a ticket desk whose tickets live in a Map per case. */
const ticketDesk: EvalToolkitFactory = (options) => {
  const tickets = new Map([['T-1001', { id: 'T-1001', status: 'open' }]]);
  let closed = 0;
  return {
    tools: [
      defineTool<{ ticket_id: string }>({
        name: 'get_ticket',
        description: 'Look up a ticket. Not for closing one: use close_ticket.',
        parameters: {
          type: 'object',
          properties: {
            ticket_id: { type: 'string', pattern: '^T-\\d{4}$', examples: ['T-1001'], description: 'Ticket' },
          },
          required: ['ticket_id'],
          additionalProperties: false,
        },
        sideEffect: 'read',
        groups: ['lookup'],
        execute: ({ ticket_id }) => {
          const ticket = options['broken'] === true ? undefined : tickets.get(ticket_id);
          if (ticket === undefined) {
            throw new RetryableToolError({ code: 'ticket_not_found', message: `No ticket ${ticket_id}.` });
          }
          return ticket;
        },
      }),
      defineTool<{ ticket_id: string }>({
        name: 'close_ticket',
        description: 'Close a ticket for good. Not for looking one up: use get_ticket.',
        parameters: {
          type: 'object',
          properties: { ticket_id: { type: 'string', description: 'Ticket' } },
          required: ['ticket_id'],
        },
        sideEffect: 'irreversible',
        groups: ['act'],
        execute: ({ ticket_id }) => {
          closed += 1;
          return { ticket_id, status: 'closed' };
        },
      }),
    ],
    gateRules: [
      { tool: 'close_ticket', when: { field: 'ticket_id', equals: 'T-9999' }, effect: 'deny', message: 'Never.' },
    ],
    state: () => ({ closed }),
  };
};

function evalCase(overrides: Partial<EvalCase>): EvalCase {
  return {
    id: 'case',
    category: 'test',
    description: undefined,
    input: ['Show me ticket T-1001.'],
    tools: {},
    model: {
      script: {
        name: 'ticket',
        turns: [
          {
            steps: [
              { call: { name: 'get_ticket', arguments: { ticket_id: 'T-1001' } } },
              { say: 'Ticket {{get_ticket.id}} is {{get_ticket.status}}.' },
            ],
          },
        ],
      },
    },
    principal: undefined,
    gate: undefined,
    limits: undefined,
    locale: 'en',
    errorStyle: 'full',
    toolkitOptions: {},
    expect: { stopReason: 'completed', answer: { contains: ['T-1001 is open'] } },
    file: 'inline',
    ...overrides,
  };
}

describe('runEvalCase', () => {
  it('runs a case on fresh data and checks its expectations', async () => {
    const result = await runEvalCase({ evalCase: evalCase({}), toolkit: ticketDesk });
    expect(result).toMatchObject({
      id: 'case',
      passed: true,
      failures: [],
      stopReason: 'completed',
      modelCalls: 2,
      toolCalls: 1,
      answer: 'Ticket T-1001 is open.',
    });
    expect(result.runs).toHaveLength(1);
    expect(result.tokens).toBeGreaterThan(0);
  });

  it('mounts only the selected tools, and the gate holds irreversible calls for a person', async () => {
    const script = {
      name: 'close',
      onRefusal: 'Sorry: {reason}',
      turns: [{ steps: [{ call: { name: 'close_ticket', arguments: { ticket_id: 'T-1001' } } }, { say: 'Closed.' }] }],
    };
    const held = await runEvalCase({
      evalCase: evalCase({
        model: { script },
        gate: { approver: 'hold' },
        expect: { stopReason: 'awaiting_approval', gate: [{ tool: 'close_ticket', decision: 'approval_required' }] },
      }),
      toolkit: ticketDesk,
    });
    expect(held.failures).toEqual([]);
    const approved = await runEvalCase({
      evalCase: evalCase({
        model: { script },
        gate: { approver: 'approve' },
        expect: { calls: { executed: ['close_ticket'] }, state: { closed: 1 }, answer: { contains: ['Closed.'] } },
      }),
      toolkit: ticketDesk,
    });
    expect(approved.failures).toEqual([]);
    const lookupOnly = await runEvalCase({
      evalCase: evalCase({
        model: { script },
        tools: { groups: ['lookup'] },
        expect: { calls: { notExecuted: ['close_ticket'] }, errors: [{ tool: 'close_ticket', stage: 'validation' }] },
      }),
      toolkit: ticketDesk,
    });
    expect(lookupOnly.failures).toEqual([]);
  });

  it("applies the toolkit's gate rules and the case's own", async () => {
    const result = await runEvalCase({
      evalCase: evalCase({
        model: {
          script: {
            name: 'deny',
            turns: [{ steps: [{ call: { name: 'close_ticket', arguments: { ticket_id: 'T-2000' } } }] }],
          },
        },
        gate: {
          approver: 'approve',
          rules: [
            { tool: 'close_ticket', effect: 'deny', code: 'closing_frozen', message: 'Closing is frozen today.' },
          ],
        },
        expect: {
          gate: [{ tool: 'close_ticket', decision: 'denied' }],
          errors: [{ tool: 'close_ticket', code: 'closing_frozen' }],
        },
      }),
      toolkit: ticketDesk,
    });
    expect(result.failures).toEqual([]);
  });

  it('plays several turns as one conversation', async () => {
    const result = await runEvalCase({
      evalCase: evalCase({
        input: ['Show me my ticket.', 'It is T-1001.'],
        model: {
          script: {
            name: 'turns',
            askUser: 'Which {field}? Like {example}.',
            turns: [
              { steps: [{ call: { name: 'get_ticket', arguments: {} } }, { say: 'unused' }] },
              {
                steps: [
                  { call: { name: 'get_ticket', arguments: {} } },
                  { say: '{{get_ticket.id}} is {{get_ticket.status}}.' },
                ],
              },
            ],
          },
        },
        expect: { stopReason: 'completed', answer: { contains: ['T-1001 is open'] }, modelCalls: { max: 5 } },
      }),
      toolkit: ticketDesk,
    });
    expect(result.failures).toEqual([]);
    expect(result.runs).toHaveLength(2);
  });

  it('fails a case that cannot run instead of stopping the suite', async () => {
    const result = await runEvalCase({
      evalCase: evalCase({ tools: { groups: ['billing'], names: ['refund_ticket'] } }),
      toolkit: ticketDesk,
    });
    expect(result.passed).toBe(false);
    expect(result.failures).toEqual(['case could not run: no group "billing", tool "refund_ticket" in this suite']);
  });

  it('runs on the configured model when asked, whatever the case says', async () => {
    const configured = new ScriptedModel({
      name: 'configured-stand-in',
      script: { name: 'other', turns: [{ steps: [{ say: 'I cannot look that up.' }] }] },
    });
    const result = await runEvalCase({
      evalCase: evalCase({}),
      toolkit: ticketDesk,
      useConfiguredModel: true,
      configuredModel: () => configured,
    });
    expect(result.passed).toBe(false);
    expect(result.failures).toEqual(['answer: does not contain "T-1001 is open"']);
  });
});
