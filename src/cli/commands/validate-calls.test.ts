import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CallVerdict, validateCalls } from './validate-calls.js';

const fixtures = 'test/fixtures';
const shopTools = 'examples/shop/shop-tools.openai.json';

function verdicts(stdout: readonly string[]): CallVerdict[] {
  return stdout.map((line) => JSON.parse(line) as CallVerdict);
}

describe('validateCalls', () => {
  it('accepts every valid call against real-world schemas: nested arrays of objects, enums, optional and nullable fields, oneOf, $ref', () => {
    const result = validateCalls({
      toolsFile: `${fixtures}/real-world-tools.json`,
      callsFile: `${fixtures}/real-world-calls.jsonl`,
    });
    const rejected = verdicts(result.stdout).filter((verdict) => !verdict.ok);
    expect(rejected).toEqual([]);
    expect(result.stderr).toEqual([]);
    expect(result.stdout).toHaveLength(16);
    expect(result.exitCode).toBe(0);
  });

  it("checks calls against the shop's tools: valid ones pass, each invalid one gets the model's message", () => {
    const result = validateCalls({ toolsFile: shopTools, callsFile: `${fixtures}/shop-calls.jsonl` });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toEqual([]);
    expect(verdicts(result.stdout).map((verdict) => [verdict.id, verdict.ok])).toEqual([
      ['call_valid_string', true],
      ['call_valid_object', true],
      ['call_seed_three_errors', false],
      ['call_malformed_json', false],
      ['call_unknown_tool', false],
      ['call_model_sends_user_id', false],
      ['call_bad_formats', false],
      ['call_bad_enum_and_string_amount', false],
      ['call_valid_chinese_note', true],
    ]);
    expect(result.stdout.join('\n')).toMatchInlineSnapshot(`
      "{"id":"call_valid_string","ok":true,"issues":[],"message":null}
      {"id":"call_valid_object","ok":true,"issues":[],"message":null}
      {"id":"call_seed_three_errors","ok":false,"issues":[{"path":"$.order_id","code":"wrong_type","message":"\`order_id\`: expected a string matching ^SO\\\\d{8}$ (Order number, \\"SO\\" + 8 digits, e.g. SO20260901). Valid example: \\"SO20260901\\". You sent the number 12345."},{"path":"$.amount_cents","code":"too_small","message":"\`amount_cents\`: expected an integer >= 1 and <= 10000000 (Integer cents (fen): 45.50 yuan is 4550. At most the order's refundable_cents). Valid example: 4550. You sent the number -100."},{"path":"$.reason","code":"too_short","message":"\`reason\`: expected a non-empty string of at most 500 characters (The customer's reason, one sentence). Valid example: \\"The mug arrived with a chipped handle.\\". You sent an empty string \\"\\"."}],"message":"The call to apply_refund was not run: 3 problems with its arguments. Fix all of them and call apply_refund again.\\n- \`order_id\`: expected a string matching ^SO\\\\d{8}$ (Order number, \\"SO\\" + 8 digits, e.g. SO20260901). Valid example: \\"SO20260901\\". You sent the number 12345.\\n- \`amount_cents\`: expected an integer >= 1 and <= 10000000 (Integer cents (fen): 45.50 yuan is 4550. At most the order's refundable_cents). Valid example: 4550. You sent the number -100.\\n- \`reason\`: expected a non-empty string of at most 500 characters (The customer's reason, one sentence). Valid example: \\"The mug arrived with a chipped handle.\\". You sent an empty string \\"\\"."}
      {"id":"call_malformed_json","ok":false,"issues":[{"path":"$","code":"invalid_json","message":"\`query_order\`: the arguments are not valid JSON. Send one JSON object with the arguments as fields (required: \`order_id\`). Valid example: {\\"order_id\\": \\"SO20260901\\"}. You sent the text \\"{\\\\\\"order_id\\\\\\": \\\\\\"SO20260901\\\\\\"\\"."}],"message":"The call to query_order was not run: 1 problem with its arguments. Fix it and call query_order again.\\n- \`query_order\`: the arguments are not valid JSON. Send one JSON object with the arguments as fields (required: \`order_id\`). Valid example: {\\"order_id\\": \\"SO20260901\\"}. You sent the text \\"{\\\\\\"order_id\\\\\\": \\\\\\"SO20260901\\\\\\"\\"."}
      {"id":"call_unknown_tool","ok":false,"issues":[{"path":"$","code":"unknown_tool","message":"\`cancel_order\`: there is no tool with this name. Available tools: query_order, track_shipment, query_refund, add_order_note, apply_refund."}],"message":"The call to cancel_order was not run: 1 problem with the call. Use one of the available tools instead.\\n- \`cancel_order\`: there is no tool with this name. Available tools: query_order, track_shipment, query_refund, add_order_note, apply_refund."}
      {"id":"call_model_sends_user_id","ok":false,"issues":[{"path":"$.user_id","code":"unknown_field","message":"\`user_id\`: not a parameter of query_order; remove it. Allowed fields: \`order_id\`. You sent the string \\"C1002\\"."}],"message":"The call to query_order was not run: 1 problem with its arguments. Fix it and call query_order again.\\n- \`user_id\`: not a parameter of query_order; remove it. Allowed fields: \`order_id\`. You sent the string \\"C1002\\"."}
      {"id":"call_bad_formats","ok":false,"issues":[{"path":"$.order_id","code":"pattern_mismatch","message":"\`order_id\`: expected a string matching ^SO\\\\d{8}$ (Order number, \\"SO\\" + 8 digits, e.g. SO20260901; give this or refund_no). Valid example: \\"SO20260901\\". You sent the string \\"so20260901\\"."},{"path":"$.refund_no","code":"pattern_mismatch","message":"\`refund_no\`: expected a string matching ^RF\\\\d{10}$ (Refund number, \\"RF\\" + 10 digits, e.g. RF2026090001; give this or order_id). Valid example: \\"RF2026090001\\". You sent the string \\"RF-1\\"."}],"message":"The call to query_refund was not run: 2 problems with its arguments. Fix all of them and call query_refund again.\\n- \`order_id\`: expected a string matching ^SO\\\\d{8}$ (Order number, \\"SO\\" + 8 digits, e.g. SO20260901; give this or refund_no). Valid example: \\"SO20260901\\". You sent the string \\"so20260901\\".\\n- \`refund_no\`: expected a string matching ^RF\\\\d{10}$ (Refund number, \\"RF\\" + 10 digits, e.g. RF2026090001; give this or order_id). Valid example: \\"RF2026090001\\". You sent the string \\"RF-1\\"."}
      {"id":"call_bad_enum_and_string_amount","ok":false,"issues":[{"path":"$.amount_cents","code":"wrong_type","message":"\`amount_cents\`: expected an integer >= 1 and <= 10000000 (Integer cents (fen): 45.50 yuan is 4550. At most the order's refundable_cents). Valid example: 4550. You sent the string \\"45.50\\"."},{"path":"$.reason_category","code":"invalid_enum","message":"\`reason_category\`: expected one of the allowed values (Kind of problem). Allowed values: \\"damaged\\", \\"wrong_item\\", \\"missing_item\\", \\"not_received\\", \\"not_as_described\\", \\"changed_mind\\", \\"other\\". You sent the string \\"broken\\"."}],"message":"The call to apply_refund was not run: 2 problems with its arguments. Fix all of them and call apply_refund again.\\n- \`amount_cents\`: expected an integer >= 1 and <= 10000000 (Integer cents (fen): 45.50 yuan is 4550. At most the order's refundable_cents). Valid example: 4550. You sent the string \\"45.50\\".\\n- \`reason_category\`: expected one of the allowed values (Kind of problem). Allowed values: \\"damaged\\", \\"wrong_item\\", \\"missing_item\\", \\"not_received\\", \\"not_as_described\\", \\"changed_mind\\", \\"other\\". You sent the string \\"broken\\"."}
      {"id":"call_valid_chinese_note","ok":true,"issues":[],"message":null}"
    `);
  });

  it("reports all three of the seed's errors in one verdict: wrong type, below minimum, empty", () => {
    const result = validateCalls({ toolsFile: shopTools, callsFile: `${fixtures}/shop-calls.jsonl` });
    const seed = verdicts(result.stdout).find((verdict) => verdict.id === 'call_seed_three_errors');
    expect(seed?.issues.map((issue) => [issue.path, issue.code])).toEqual([
      ['$.order_id', 'wrong_type'],
      ['$.amount_cents', 'too_small'],
      ['$.reason', 'too_short'],
    ]);
    for (const issue of seed?.issues ?? []) expect(seed?.message).toContain(issue.path.replace('$.', ''));
  });

  it('prints a valid call with no issues and a null message', () => {
    const result = validateCalls({ toolsFile: shopTools, callsFile: `${fixtures}/shop-calls.jsonl` });
    expect(result.stdout[0]).toBe('{"id":"call_valid_string","ok":true,"issues":[],"message":null}');
  });

  it('writes the model-facing messages in the requested locale', () => {
    const english = verdicts(validateCalls({ toolsFile: shopTools, callsFile: `${fixtures}/shop-calls.jsonl` }).stdout);
    const chinese = verdicts(
      validateCalls({ toolsFile: shopTools, callsFile: `${fixtures}/shop-calls.jsonl`, locale: 'zh-CN' }).stdout,
    );
    const seedEnglish = english.find((verdict) => verdict.id === 'call_seed_three_errors');
    const seedChinese = chinese.find((verdict) => verdict.id === 'call_seed_three_errors');
    expect(seedChinese?.message).not.toBe(seedEnglish?.message);
    expect(seedChinese?.message).toMatch(/[\u4e00-\u9fff]/);
    expect(seedChinese?.issues.map((issue) => issue.code)).toEqual(seedEnglish?.issues.map((issue) => issue.code));
  });

  it('exits 2 when a calls line is not JSON, naming the file and the line', () => {
    const result = validateCalls({ toolsFile: shopTools, callsFile: `${fixtures}/malformed-calls.jsonl` });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toEqual([]);
    expect(result.stderr).toHaveLength(1);
    expect(result.stderr[0]).toMatch(/^test\/fixtures\/malformed-calls\.jsonl:3: not valid JSON \(.+\)$/);
  });

  it('exits 2 when a call has no name', () => {
    expect(validateCalls({ toolsFile: shopTools, callsFile: `${fixtures}/calls-without-name.jsonl` })).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: ['test/fixtures/calls-without-name.jsonl:2: "name" must be the tool name as a string, got nothing'],
    });
  });

  it('exits 2 when the tools file is unreadable, malformed or refused by the registry', () => {
    const cases = [
      [`${fixtures}/nope.json`, /^test\/fixtures\/nope\.json: cannot read the file \(ENOENT\)$/],
      [`${fixtures}/malformed-tools.txt`, /^test\/fixtures\/malformed-tools\.txt:7: not valid JSON/],
      [`${fixtures}/not-an-array-tools.json`, /^test\/fixtures\/not-an-array-tools\.json: expected a JSON array/],
      [`${fixtures}/invalid-schema-tools.json`, /^test\/fixtures\/invalid-schema-tools\.json: .*query_order/],
      [`${fixtures}/duplicate-names-tools.json`, /: tool "query_order" is registered twice$/],
    ] as const;
    for (const [toolsFile, stderr] of cases) {
      const result = validateCalls({ toolsFile, callsFile: `${fixtures}/shop-calls.jsonl` });
      expect(result.exitCode, toolsFile).toBe(2);
      expect(result.stdout).toEqual([]);
      expect(result.stderr[0]).toMatch(stderr);
    }
  });

  it('exits 2 when the calls file is unreadable', () => {
    const result = validateCalls({ toolsFile: shopTools, callsFile: `${fixtures}/nope.jsonl` });
    expect(result).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: ['test/fixtures/nope.jsonl: cannot read the file (ENOENT)'],
    });
  });
});

describe('validateCalls on hostile input', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'arbiter-validate-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('rejects a 40-character argument against ^(a+)+$ at once instead of backtracking for minutes', () => {
    const toolsFile = join(scratch, 'tools.json');
    const callsFile = join(scratch, 'calls.jsonl');
    const parameters = {
      type: 'object',
      properties: { code: { type: 'string', description: 'A code of a letters.', pattern: '^(a+)+$' } },
      required: ['code'],
    };
    writeFileSync(
      toolsFile,
      JSON.stringify([
        { type: 'function', function: { name: 'check_code', description: 'Checks a code.', parameters } },
      ]),
    );
    const codes = [`${'a'.repeat(40)}b`, 'a'.repeat(10_000), `${'a'.repeat(10_000)}!`];
    writeFileSync(
      callsFile,
      codes
        .map((code, index) => JSON.stringify({ id: `call_${index}`, name: 'check_code', arguments: { code } }))
        .join('\n'),
    );
    const result = validateCalls({ toolsFile, callsFile });
    expect(verdicts(result.stdout).map((verdict) => [verdict.id, verdict.ok])).toEqual([
      ['call_0', false],
      ['call_1', true],
      ['call_2', false],
    ]);
    expect(result.exitCode).toBe(1);
  });

  it('stops reading /dev/zero at the input cap and exits 2 with a clear error', () => {
    const result = validateCalls({ toolsFile: '/dev/zero', callsFile: `${fixtures}/shop-calls.jsonl` });
    expect(result).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: ['/dev/zero: larger than 16 MiB, the most arbiter reads from one input file'],
    });
  });
});
