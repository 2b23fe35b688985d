/**
 * What `execute` receives from each schema library, as that library itself
 * would hand it over: defaults filled in, and unknown keys the model sent
 * dropped, kept or refused as the library's own parse drops, keeps or
 * refuses them. Each case is checked against the library's own
 * `~standard.validate` on the same arguments.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { JsonSchema } from '../core/json-schema.js';
import type { AgentEvent } from '../events/agent-event.js';
import { EventBus } from '../events/event-bus.js';
import { runAgent } from '../loop/run-agent.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { openSqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import { validateToolCall } from '../validation/validate-tool-call.js';
import { defineTool } from './define-tool.js';
import type { StandardJsonSchema } from './standard-json-schema.js';
import { ToolRegistry } from './tool-registry.js';

const base = { name: 'add_contact', description: 'Adds a contact. Not for orders: use query_order.' } as const;
/** What the model sends: one unknown key at the top, one in the nested object. */
const sent = { name: 'Li Wei', extra: 1, address: { city: 'Hangzhou', floor: 3 } };

/** The arguments `execute` would receive, or the refusal's issue codes and paths. */
function received(parameters: JsonSchema | StandardJsonSchema, args: unknown = sent) {
  const registry = new ToolRegistry().register(
    defineTool({ ...base, sideEffect: 'read', parameters, execute: () => 'ok' } as Parameters<typeof defineTool>[0]),
  );
  const checked = validateToolCall({ registry, name: base.name, rawArguments: JSON.stringify(args) });
  return checked.ok ? checked.args : { refused: checked.issues.map((issue) => `${issue.path} ${issue.code}`) };
}

/** What the library itself makes of the same arguments. */
async function library(schema: StandardJsonSchema, args: unknown = sent) {
  const validate = (schema['~standard'] as unknown as { validate(value: unknown): unknown }).validate;
  const result = (await validate(args)) as { value?: unknown; issues?: readonly unknown[] };
  return result.issues === undefined ? result.value : 'refused';
}

const unknownKeyCases: { library: string; rule: string; schema: StandardJsonSchema; expected: unknown }[] = [
  {
    library: 'zod',
    rule: 'z.object drops unknown keys',
    schema: z.object({ name: z.string(), address: z.object({ city: z.string() }) }),
    expected: { name: 'Li Wei', address: { city: 'Hangzhou' } },
  },
  {
    library: 'zod',
    rule: 'z.strictObject (.strict()) refuses them',
    schema: z.strictObject({ name: z.string(), address: z.strictObject({ city: z.string() }) }),
    expected: { refused: ['$.address.floor unknown_field', '$.extra unknown_field'] },
  },
  {
    library: 'zod',
    rule: 'z.looseObject (.loose(), .passthrough()) keeps them',
    schema: z.looseObject({ name: z.string(), address: z.object({ city: z.string() }).passthrough() }),
    expected: sent,
  },
  {
    library: 'valibot',
    rule: 'v.object drops unknown keys',
    schema: toStandardJsonSchema(v.object({ name: v.string(), address: v.object({ city: v.string() }) })),
    expected: { name: 'Li Wei', address: { city: 'Hangzhou' } },
  },
  {
    library: 'valibot',
    rule: 'v.strictObject refuses them',
    schema: toStandardJsonSchema(v.strictObject({ name: v.string(), address: v.strictObject({ city: v.string() }) })),
    expected: { refused: ['$.address.floor unknown_field', '$.extra unknown_field'] },
  },
  {
    library: 'valibot',
    rule: 'v.looseObject keeps them',
    schema: toStandardJsonSchema(v.looseObject({ name: v.string(), address: v.looseObject({ city: v.string() }) })),
    expected: sent,
  },
  {
    library: 'arktype',
    rule: 'an object type keeps unknown keys (its default, "ignore")',
    schema: type({ name: 'string', address: { city: 'string' } }),
    expected: sent,
  },
  {
    library: 'arktype',
    rule: '"+": "delete" drops them',
    schema: type({ '+': 'delete', name: 'string', address: { '+': 'delete', city: 'string' } }),
    expected: { name: 'Li Wei', address: { city: 'Hangzhou' } },
  },
  {
    library: 'arktype',
    rule: '"+": "reject" refuses them',
    schema: type({ '+': 'reject', name: 'string', address: { '+': 'reject', city: 'string' } }),
    expected: { refused: ['$.address.floor unknown_field', '$.extra unknown_field'] },
  },
];

describe('unknown keys the model sends', () => {
  it.each(unknownKeyCases)('$library: $rule, before execute as in the library', async ({ schema, expected }) => {
    expect(received(schema)).toEqual(expected);
    const own = await library(schema);
    expect(own).toEqual('refused' in (expected as object) ? 'refused' : expected);
  });

  it('JSON Schema: kept without additionalProperties, refused with additionalProperties: false', () => {
    const open = {
      type: 'object',
      properties: { name: { type: 'string' }, address: { type: 'object', properties: { city: { type: 'string' } } } },
      required: ['name'],
    } as const;
    expect(received(open)).toEqual(sent);
    const closed = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        address: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
      },
      required: ['name'],
      additionalProperties: false,
    } as const;
    expect(received(closed)).toEqual({ refused: ['$.address.floor unknown_field', '$.extra unknown_field'] });
  });

  it('keeps the keys of a zod union (no key dropped inside anyOf), as a documented limit', () => {
    const schema = z.object({ contact: z.union([z.object({ email: z.string() }), z.object({ phone: z.string() })]) });
    expect(received(schema, { contact: { phone: '1', note: 'x' } })).toEqual({ contact: { phone: '1', note: 'x' } });
  });

  it("never drops a key a union's other branch holds: a strict branch that fails removes nothing", () => {
    const schema = z.object({
      contact: z.union([z.strictObject({ email: z.string() }), z.strictObject({ phone: z.string() })]),
      notify: z.boolean().default(false),
    });
    expect(received(schema, { contact: { phone: '1' } })).toEqual({ contact: { phone: '1' }, notify: false });
  });
});

describe('defaults', () => {
  const cases: { library: string; schema: StandardJsonSchema }[] = [
    { library: 'zod', schema: z.object({ name: z.string(), notify: z.boolean().default(true) }) },
    {
      library: 'valibot',
      schema: toStandardJsonSchema(v.object({ name: v.string(), notify: v.optional(v.boolean(), true) })),
    },
    { library: 'arktype', schema: type({ name: 'string', notify: 'boolean = true' }) },
  ];

  it.each(cases)(
    'fills a $library default before execute, as the library does, and keeps one sent',
    async ({ schema }) => {
      expect(received(schema, { name: 'Li Wei' })).toEqual({ name: 'Li Wei', notify: true });
      expect(await library(schema, { name: 'Li Wei' })).toEqual({ name: 'Li Wei', notify: true });
      expect(received(schema, { name: 'Li Wei', notify: false })).toEqual({ name: 'Li Wei', notify: false });
    },
  );

  it('fills a JSON Schema default, nested ones in objects that were sent, each a fresh copy', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, default: [] },
        address: { type: 'object', properties: { country: { type: 'string', default: 'CN' } } },
      },
      required: ['name'],
    } as const;
    const first = received(schema, { name: 'Li Wei', address: {} });
    expect(first).toEqual({ name: 'Li Wei', tags: [], address: { country: 'CN' } });
    (first as { tags: string[] }).tags.push('changed');
    expect(received(schema, { name: 'Li Wei' })).toEqual({ name: 'Li Wei', tags: [] });
  });

  it('types a defaulted field as present in execute: the output type of zod, valibot and ArkType', () => {
    defineTool({
      ...base,
      sideEffect: 'read',
      parameters: z.object({ name: z.string(), notify: z.boolean().default(true) }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ name: string; notify: boolean }>();
      },
    });
    defineTool({
      ...base,
      sideEffect: 'read',
      parameters: type({ name: 'string', notify: 'boolean = true' }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ name: string; notify: boolean }>();
      },
    });
    defineTool({
      ...base,
      sideEffect: 'read',
      parameters: {
        type: 'object',
        properties: { name: { type: 'string' }, notify: { type: 'boolean', default: true } },
        required: ['name'],
      } as const,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ name: string; notify: boolean }>();
      },
    });
  });

  it('reaches execute present; tool:proposed keeps what the model sent, the audit what execute received', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      ...base,
      sideEffect: 'reversible',
      parameters: z.object({ name: z.string(), notify: z.boolean().default(true) }),
      execute: (args) => {
        seen.push(args);
        return { saved: args.name, notify: args.notify };
      },
    });
    const events: AgentEvent[] = [];
    const bus = new EventBus();
    bus.subscribe((event) => void events.push(event));
    const backend = openSqliteBackend({ path: ':memory:' });
    const model = new ScriptedModel({
      script: {
        name: 'contact',
        turns: [{ steps: [{ call: { name: base.name, arguments: { name: 'Li Wei', extra: 1 } } }, { say: 'Saved.' }] }],
      },
    });
    const result = await runAgent({
      model,
      tools: new ToolRegistry().register(tool),
      messages: [{ role: 'user', content: 'Save Li Wei' }],
      events: bus,
      audit: backend.audit,
    });
    expect(result.stopReason).toBe('completed');
    expect(seen).toEqual([{ name: 'Li Wei', notify: true }]);
    const proposed = events.find((event) => event.type === 'tool:proposed');
    expect(proposed?.type === 'tool:proposed' ? JSON.parse(proposed.arguments) : undefined).toEqual({
      name: 'Li Wei',
      extra: 1,
    });
    expect(backend.audit.listAudit().map((entry) => entry.arguments)).toEqual([{ name: 'Li Wei', notify: true }]);
    backend.close();
  });
});
