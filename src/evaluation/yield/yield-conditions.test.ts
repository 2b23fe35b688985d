import { describe, expect, it } from 'vitest';
import type { ValidationIssue } from '../../validation/validation-issue.js';
import { conditionMessage, type RefusedCall } from './yield-conditions.js';

const schema = {
  type: 'object',
  properties: { order_id: { type: 'string', pattern: '^SO\\d{8}$' } },
  required: ['order_id'],
};

function refused(rawArguments: string, issues: ValidationIssue[]): RefusedCall {
  return {
    toolName: 'query_order',
    rawArguments,
    issues,
    message: 'arbiter message',
    schema,
    toolNames: ['query_order', 'track_shipment'],
  };
}

describe('conditionMessage', () => {
  it("words a schema failure as the AI SDK's InvalidToolInputError over a TypeValidationError", () => {
    const text = conditionMessage({
      condition: 'ai_sdk',
      refused: refused('{"order_id": "20260901"}', [
        { path: '$.order_id', code: 'pattern_mismatch', layer: 'semantic', message: '…' } as ValidationIssue,
      ]),
    });
    expect(text).toMatchInlineSnapshot(`
      "Invalid input for tool query_order: Type validation failed: Value: {"order_id":"20260901"}.
      Error message: [
        {
          "origin": "string",
          "code": "invalid_format",
          "format": "regex",
          "pattern": "/^SO\\\\d{8}$/",
          "path": [
            "order_id"
          ],
          "message": "Invalid string: must match pattern /^SO\\\\d{8}$/"
        }
      ]"
    `);
  });

  it("words arguments that are not JSON as the AI SDK's JSONParseError, not as a type validation", () => {
    const text = conditionMessage({
      condition: 'ai_sdk',
      refused: refused('{"order_id": "SO2026', [
        { path: '$', code: 'invalid_json', layer: 'call', message: '…' } as ValidationIssue,
      ]),
    });
    expect(text).toMatch(
      /^Invalid input for tool query_order: JSON parsing failed: Text: \{"order_id": "SO2026\.\nError message: Unterminated string in JSON/,
    );
  });

  it("gives OpenAI Agents' parse-error text for any invalid arguments and the unknown-tool text otherwise", () => {
    const issue = { path: '$', code: 'invalid_json', layer: 'call', message: '…' } as ValidationIssue;
    expect(conditionMessage({ condition: 'openai_agents', refused: refused('{', [issue]) })).toBe(
      'An error occurred while parsing tool arguments. Please try again with valid JSON.',
    );
    const unknown = { path: '$', code: 'unknown_tool', layer: 'call', message: '…' } as ValidationIssue;
    expect(
      conditionMessage({ condition: 'openai_agents', refused: { ...refused('{}', [unknown]), toolName: 'x' } }),
    ).toBe('Tool x not found in agent Assistant.');
  });
});
