import type { JsonSchema } from '../core/json-schema.js';
import { stopReasons } from '../core/stop-reason.js';

const strings = { type: 'array', items: { type: 'string' } } as const;

const toolSelection = {
  type: 'object',
  description: 'Tools to mount: every tool of these groups plus these names',
  properties: { groups: strings, names: strings },
  additionalProperties: false,
} as const;

const principal = {
  type: 'object',
  properties: { tenantId: { type: 'string' }, userId: { type: 'string' }, roles: strings },
  required: ['tenantId', 'userId', 'roles'],
  additionalProperties: false,
} as const;

const gateRule = {
  type: 'object',
  description: 'A rule of createTierGate: deny, or send to a person, the calls of a tool matching "when"',
  properties: {
    tool: { type: 'string' },
    when: {
      type: 'object',
      properties: {
        field: { type: 'string' },
        above: { type: 'number' },
        atLeast: { type: 'number' },
        below: { type: 'number' },
        atMost: { type: 'number' },
        equals: { type: ['string', 'number', 'boolean'] },
        oneOf: { type: 'array', items: { type: ['string', 'number', 'boolean'] } },
      },
      required: ['field'],
      additionalProperties: false,
    },
    effect: { enum: ['deny', 'require_approval'] },
    rule: { type: 'string' },
    message: { type: 'string', minLength: 1 },
    code: { type: 'string' },
  },
  required: ['tool', 'effect', 'message'],
  additionalProperties: false,
} as const;

const gate = {
  type: 'object',
  properties: {
    rules: { type: 'array', items: gateRule },
    approver: { enum: ['none', 'approve', 'reject', 'hold', 'approve-expired', 'approve-then-rules-change'] },
  },
  additionalProperties: false,
} as const;

const limits = {
  type: 'object',
  properties: {
    maxSteps: { type: 'integer', minimum: 1 },
    tokenBudget: { type: 'integer', minimum: 1 },
    timeLimitMs: { type: 'integer', minimum: 1 },
    maxIdenticalCalls: { type: 'integer', minimum: 1 },
    maxConsecutiveFailures: { type: 'integer', minimum: 1 },
  },
  additionalProperties: false,
} as const;

const script = {
  type: 'object',
  description: 'A scripted model script (see src/models/script.ts)',
  properties: { name: { type: 'string' }, turns: { type: 'array', items: { type: 'object' } } },
  required: ['name', 'turns'],
} as const;

const model = {
  description: '"configured" for the ARBITER_* endpoint, or {"script": …} inline or as a path relative to the case',
  anyOf: [
    { const: 'configured' },
    {
      type: 'object',
      properties: { script: { anyOf: [{ type: 'string', minLength: 1 }, script] } },
      required: ['script'],
      additionalProperties: false,
    },
  ],
} as const;

const textChecks = {
  type: 'object',
  properties: { contains: strings, notContains: strings, matches: strings, notMatches: strings },
  additionalProperties: false,
} as const;

const stopReason = { enum: stopReasons } as const;

const expectations = {
  type: 'object',
  properties: {
    stopReason: { anyOf: [stopReason, { type: 'array', items: stopReason, minItems: 1 }] },
    calls: {
      type: 'object',
      properties: { made: strings, notMade: strings, executed: strings, notExecuted: strings },
      additionalProperties: false,
    },
    arguments: {
      type: 'array',
      items: {
        type: 'object',
        properties: { tool: { type: 'string' }, includes: { type: 'object' } },
        required: ['tool', 'includes'],
        additionalProperties: false,
      },
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          tool: { type: 'string' },
          stage: { enum: ['validation', 'brake', 'gate', 'execution'] },
          code: { type: 'string' },
          retryable: { type: 'boolean' },
          messageContains: strings,
        },
        required: ['tool'],
        additionalProperties: false,
      },
    },
    gate: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          tool: { type: 'string' },
          decision: { enum: ['allowed', 'approval_required', 'approved', 'rejected', 'denied', 'not_checked'] },
          reasonContains: strings,
        },
        required: ['tool', 'decision'],
        additionalProperties: false,
      },
    },
    answer: textChecks,
    modelCalls: {
      type: 'object',
      properties: { min: { type: 'integer', minimum: 0 }, max: { type: 'integer', minimum: 0 } },
      additionalProperties: false,
    },
    state: { type: 'object' },
    audit: {
      type: 'object',
      properties: { tools: { type: 'array', items: { type: 'string' } } },
      required: ['tools'],
      additionalProperties: false,
    },
    allowInternalDetails: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

const caseSettings = {
  tools: toolSelection,
  model,
  principal,
  gate,
  limits,
  locale: { enum: ['en', 'zh-CN'] },
  errorStyle: { enum: ['full', 'field_only', 'vague'] },
  toolkitOptions: { type: 'object' },
  memory: {
    type: 'object',
    properties: {
      facts: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            tenantId: { type: 'string', minLength: 1 },
            userId: { type: 'string', minLength: 1 },
            key: { type: 'string', minLength: 1 },
            value: { type: 'string', minLength: 1 },
            from: { enum: ['user', 'tool', 'model'] },
            savedDaysAgo: { type: 'number', minimum: 0 },
            validDays: { type: 'number', exclusiveMinimum: 0 },
          },
          required: ['key', 'value'],
          additionalProperties: false,
        },
      },
      sessionPerTurn: { type: 'boolean' },
      pin: { type: 'boolean' },
    },
    additionalProperties: false,
  },
} as const;

/**
 * The JSON Schema of an evaluation case file. Unknown keys are refused, so
 * a misspelt expectation fails loudly instead of passing unchecked.
 *
 * @example
 * compileToolValidator({ schema: caseFileSchema, toolName: 'eval_case' })(JSON.parse(text));
 */
export const caseFileSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', examples: ['prompt-injection'] },
    category: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    input: {
      description: "The user's message, or one message per turn",
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', items: { type: 'string' }, minItems: 1 },
      ],
    },
    ...caseSettings,
    expect: expectations,
  },
  required: ['id', 'category', 'input', 'expect'],
  additionalProperties: false,
};

/**
 * The JSON Schema of a suite file (`suite.json`).
 *
 * @example
 * compileToolValidator({ schema: suiteFileSchema, toolName: 'eval_suite' })(JSON.parse(text));
 */
export const suiteFileSchema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    toolkit: { type: 'string', description: 'The application toolkit the command supplies, e.g. "shop"' },
    fixtures: { type: 'string', description: "Path of the suite's own tools (JSON), relative to the suite" },
    cases: { type: 'string', description: 'Directory of the case files, relative to the suite. Default "cases"' },
    defaults: { type: 'object', properties: caseSettings, additionalProperties: false },
  },
  required: ['name'],
  additionalProperties: false,
};

/**
 * The JSON Schema of a suite's fixture tools file: OpenAI function tools
 * with a side effect, groups, and a canned result or failure.
 *
 * @example
 * compileToolValidator({ schema: fixtureFileSchema, toolName: 'eval_fixtures' })({ tools: [] });
 */
export const fixtureFileSchema: JsonSchema = {
  type: 'object',
  properties: {
    tools: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          type: { const: 'function' },
          function: {
            type: 'object',
            properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object' } },
            required: ['name', 'description', 'parameters'],
          },
          sideEffect: { enum: ['read', 'reversible', 'irreversible'] },
          groups: strings,
          egress: { type: 'boolean' },
          untrustedOutput: { type: ['boolean', 'string'] },
          returns: {},
          fails: {
            type: 'object',
            properties: { code: { type: 'string' }, retryable: { type: 'boolean' }, message: { type: 'string' } },
            required: ['code', 'retryable', 'message'],
            additionalProperties: false,
          },
        },
        required: ['type', 'function'],
        additionalProperties: false,
      },
    },
  },
  required: ['tools'],
  additionalProperties: false,
};
