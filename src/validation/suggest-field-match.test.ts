import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import { compileToolValidator } from './compile-tool-validator.js';
import { formatValidationMessage } from './format-validation-message.js';
import { suggestFieldMatch } from './suggest-field-match.js';

function message(schema: JsonSchema, args: unknown, locale: 'en' | 'zh-CN' = 'en'): string {
  const issues = compileToolValidator({ schema, toolName: 'check_claim', locale })(args);
  return formatValidationMessage({ toolName: 'check_claim', issues, locale });
}

const claim: JsonSchema = {
  type: 'object',
  properties: { statement: { type: 'string' }, source_url: { type: 'string' }, language: { type: 'string' } },
  required: ['statement', 'source_url'],
};

describe('suggestFieldMatch', () => {
  it('pairs a lone missing field with a lone unknown one, however different', () => {
    expect(suggestFieldMatch({ missing: ['statement'], unknown: ['question'] })).toEqual(
      new Map([['statement', 'question']]),
    );
  });

  it('pairs by similarity when several are missing and sent, and leaves dissimilar ones alone', () => {
    expect(
      suggestFieldMatch({ missing: ['statement', 'source_url'], unknown: ['sourceUrl', 'statment', 'zzz'] }),
    ).toEqual(
      new Map([
        ['statement', 'statment'],
        ['source_url', 'sourceUrl'],
      ]),
    );
    expect(suggestFieldMatch({ missing: ['statement', 'source_url'], unknown: ['zzz', 'qq'] }).size).toBe(0);
  });

  it('rejects a missing field sent under another name, suggesting the match in English and Chinese', () => {
    expect(message(claim, { question: 'Is the sky green?', source_url: 'https://example.com' })).toMatchInlineSnapshot(`
      "The call to check_claim was not run: 1 problem with its arguments. Fix it and call check_claim again.
      - \`statement\`: this required field is missing. Expected a string. You sent \`question\` instead; did you mean \`statement\`?"
    `);
    expect(
      message(claim, { question: 'Is the sky green?', source_url: 'https://example.com' }, 'zh-CN'),
    ).toMatchInlineSnapshot(`
      "调用 check_claim 未执行：参数有 1 处问题。请改正后重新调用 check_claim。
      - \`statement\`：缺少这个必填参数，需要字符串。你传了 \`question\`，是不是想传 \`statement\`？"
    `);
  });

  it('still names every bad field when additional properties are refused', () => {
    const closed = { ...claim, additionalProperties: false };
    expect(message(closed, { statment: 'x', sourceUrl: 'y' })).toMatchInlineSnapshot(`
      "The call to check_claim was not run: 4 problems with its arguments. Fix all of them and call check_claim again.
      - \`statement\`: this required field is missing. Expected a string. You sent \`statment\` instead; did you mean \`statement\`?
      - \`source_url\`: this required field is missing. Expected a string. You sent \`sourceUrl\` instead; did you mean \`source_url\`?
      - \`statment\`: not a parameter of check_claim; remove it. Allowed fields: \`statement\`, \`source_url\`, \`language\`. You sent the string "x".
      - \`sourceUrl\`: not a parameter of check_claim; remove it. Allowed fields: \`statement\`, \`source_url\`, \`language\`. You sent the string "y"."
    `);
  });

  it('rejects an array whose enum sits on the array itself without blaming the valid items', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' }, enum: ['red', 'blue'] } },
    };
    expect(message(schema, { tags: ['red'] })).toMatchInlineSnapshot(`
      "The call to check_claim was not run: 1 problem with its arguments. Fix it and call check_claim again.
      - \`tags\`: expected an array whose items are one of the allowed values; the schema puts the allowed values on the array itself, so no array can pass: tell the user this tool is misconfigured. Allowed values: "red", "blue". You sent an array of 1 item."
    `);
    expect(message(schema, { tags: ['red'] }, 'zh-CN')).toMatchInlineSnapshot(`
      "调用 check_claim 未执行：参数有 1 处问题。请改正后重新调用 check_claim。
      - \`tags\`：需要数组，且每一项都是以下取值之一；但 schema 把可选值放在了数组本身上，任何数组都无法通过：请告诉用户这个工具配置有误。可选值："red", "blue"。你传的是包含 1 项的数组。"
    `);
  });
});

describe('a misnamed field the model sent with a control character', () => {
  it('shows the sent name escaped, so the message stays on one line per issue', () => {
    const validate = compileToolValidator({
      toolName: 'create_refund',
      schema: {
        type: 'object',
        properties: { reason: { type: 'string', enum: ['damaged', 'other'] } },
        required: ['reason'],
        additionalProperties: false,
      },
    });
    const issues = validate({ '\n': '' });
    const misnamed = issues.find((issue) => issue.message.includes('did you mean'));
    expect(misnamed?.message).toContain('You sent `"\\n"` instead; did you mean `reason`?');
    for (const issue of issues) expect(issue.message).not.toContain('\n');
  });
});
