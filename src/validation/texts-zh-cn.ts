import { type IssueParts, isCutShort, quoteShort, type Received, type ValidationTexts } from './issue-parts.js';
import { listHead } from './list-head.js';
import { renderJson } from './render-json.js';
import {
  isEnumOnArray,
  type JsonType,
  numericLimit,
  type SchemaFacts,
  type SchemaLimit,
  textualLimit,
} from './schema-facts.js';
import type { ExampleHint } from './schema-guide.js';

const maxVariantsListed = 6;

const nouns: Readonly<Record<JsonType, string>> = {
  string: '字符串',
  integer: '整数',
  number: '数字',
  boolean: '布尔值',
  object: '对象',
  array: '数组',
  null: 'null',
};

/**
 * Simplified Chinese validation texts.
 *
 * @example
 * chineseTexts.header({ toolName: 'apply_refund', count: 3, subject: 'arguments' });
 * // '调用 apply_refund 未执行：参数有 3 处问题。请一次改正全部问题后重新调用 apply_refund。'
 */
export const chineseTexts: ValidationTexts = {
  header({ toolName, count, subject }) {
    if (subject === 'call') return `调用 ${toolName} 未执行：调用有 ${count} 处问题。请改用可用的工具。`;
    const fix = count === 1 ? '请改正后重新调用' : '请一次改正全部问题后重新调用';
    return `调用 ${toolName} 未执行：参数有 ${count} 处问题。${fix} ${toolName}。`;
  },

  fieldWording({ facts, description, hint }) {
    const expected = facts === undefined ? '一个值' : expectedPhrase(facts);
    return {
      expected: description === undefined ? expected : `${expected}（${description}）`,
      hint: hintSentence(hint),
    };
  },

  issueStart(parts) {
    const head = `\`${parts.field}\`：`;
    const described = parts.wording?.expected ?? '一个值';
    const hint = parts.wording?.hint ?? '';
    const { problem } = parts;
    switch (problem.kind) {
      case 'mismatch':
        return `${head}${needs(described)}。${hint}`;
      case 'missing':
        return `${head}缺少这个必填参数，${needs(described)}。${hint}`;
      case 'missing_with':
        return `${head}传了 \`${problem.property}\` 时必须同时传这个参数，${needs(described)}。${hint}`;
      case 'several_variants':
        return `${head}只能符合以下形式中的一种，但传入的值同时符合多种：${described}。${hint}`;
      case 'duplicates':
        return `${head}${needs(described)}。[${problem.first}] 和 [${problem.second}] 两项相同。${hint}`;
      case 'unknown_field':
        return `${head}${unknownFieldSentence(parts.toolName, problem)}`;
      case 'field_name':
        return `${head}不接受这个字段名：${spaced('字段名需要是', described)}。`;
      case 'not_json':
        return `${head}参数不是合法的 JSON。请传一个 JSON 对象，每个参数作为一个字段${requiredNote(problem.required)}。${hint}`;
      case 'not_object':
        return `${head}需要一个 JSON 对象，每个参数作为一个字段${requiredNote(problem.required)}。${hint}`;
      case 'too_deep':
        return `${head}参数嵌套超过 ${problem.limit} 层；请发送一个扁平的对象，每个参数作为一个字段。${hint}`;
      case 'unknown_tool':
        return `${head}没有这个名字的工具。${
          problem.available.length > 0 ? `可用工具：${withMore(problem.available, ', ')}。` : '当前没有可用的工具。'
        }${problem.suggestions.length === 0 ? '' : `你是不是想调用 ${problem.suggestions.join(' 或 ')}？`}`;
    }
  },

  received: receivedSentence,
  sentValue,

  notListed(count) {
    return `（另有 ${count} 处问题未列出：请先改正以上问题，重新调用后会看到其余问题。）`;
  },
};

function unknownFieldSentence(
  toolName: string,
  problem: Extract<IssueParts['problem'], { kind: 'unknown_field' }>,
): string {
  const root = problem.container === undefined;
  const where = root ? `${toolName} 没有这个参数，请删除。` : `\`${problem.container}\` 中没有这个字段，请删除。`;
  const { allowed, patterns } = problem;
  const patternText = patterns.join(' 或 ');
  if (allowed === undefined) return where;
  if (allowed.length === 0 && patterns.length === 0) return `${where}这里不接受任何字段。`;
  if (allowed.length === 0) return `${where}字段名需匹配 ${patternText}。`;
  const others = patterns.length === 0 ? '' : `其他字段名需匹配 ${patternText}。`;
  return `${where}${root ? '可用参数' : '可用字段'}：${fieldList(allowed)}。${others}`;
}

function requiredNote(required: readonly string[]): string {
  return required.length === 0 ? '' : `（必填：${fieldList(required)}）`;
}

function fieldList(names: readonly string[]): string {
  return withMore(
    names.map((name) => `\`${name}\``),
    '、',
  );
}

/** The first items of a list, then "等（另有 K 个）": a long enum or field list must not flood the message. */
function withMore(items: readonly string[], separator: string, more = 0): string {
  const head = listHead(items);
  const left = head.more + more;
  return left === 0 ? head.shown.join(separator) : `${head.shown.join(separator)} 等（另有 ${left} 个）`;
}

function hintSentence(hint: ExampleHint | undefined): string {
  if (hint === undefined) return '';
  return hint.kind === 'example' ? `合法示例：${hint.json}。` : `可选值：${withMore(hint.json, ', ', hint.more)}。`;
}

function receivedSentence(received: Received): string {
  switch (received.kind) {
    case 'omit':
      return '';
    case 'nothing':
      return '你没有传这个参数。';
    case 'misnamed':
      return `你传了 \`${received.sent}\`，是不是想传 \`${received.wanted}\`？`;
    case 'value':
      return sentValue(received.value);
    case 'near_value':
      return `你传的是字符串 ${quoteShort(received.value)}，是不是想传 ${quoteShort(received.nearest)}？`;
    case 'sent_twice':
      return `${sentValue(received.value).slice(0, -1)}，它符合 \`${received.field}\` 的要求，而且你已经作为 \`${received.field}\` 传过：请去掉 \`${received.extra}\`。`;
    case 'other_field':
      return `${sentValue(received.value).slice(0, -1)}，它符合 \`${received.field}\` 的要求：是不是应该作为 \`${received.field}\` 传？`;
    case 'text': {
      const { text } = received;
      const note = isCutShort(text) ? `（共 ${text.length} 个字符，此处已截断）` : '';
      return `你传的是文本 ${quoteShort(text)}${note}。`;
    }
  }
}

/** What was sent, as the closing sentence of an issue line: each case one template, so it is few pieces to lay out flat. */
function sentValue(value: unknown): string {
  if (value === null) return '你传的是 null。';
  switch (typeof value) {
    case 'string': {
      if (value === '') return '你传的是空字符串 ""。';
      const quoted = quoteShort(value);
      return isCutShort(value)
        ? `你传的是字符串 ${quoted}（共 ${value.length} 个字符，此处已截断）。`
        : `你传的是字符串 ${quoted}。`;
    }
    case 'number':
      return `你传的是数字 ${String(value)}。`;
    case 'boolean':
      return `你传的是布尔值 ${String(value)}。`;
    case 'undefined':
      return '你传的是空值。';
    case 'object':
      if (Array.isArray(value))
        return value.length === 0 ? '你传的是空数组 []。' : `你传的是包含 ${value.length} 项的数组。`;
      return Object.keys(value).length === 0 ? '你传的是空对象 {}。' : '你传的是一个对象。';
    default:
      return `你传的是${typeof value} 类型的值。`;
  }
}

function expectedPhrase(facts: SchemaFacts): string {
  if (facts.constant !== undefined) return `固定值 ${renderJson(facts.constant.value)}`;
  if (facts.allowedValues !== undefined) {
    return isEnumOnArray(facts)
      ? '数组，且每一项都是以下取值之一；但 schema 把可选值放在了数组本身上，任何数组都无法通过：请告诉用户这个工具配置有误'
      : '以下取值之一';
  }
  const types = facts.types.filter((type) => type !== 'number' || !facts.types.includes('integer'));
  const base = spaced(
    ...interleave(
      types.map((type) => typePhrase(type, facts)),
      '或',
    ),
  );
  if (facts.variants.length === 0) return base === '' ? '一个值' : base;
  const forms = variantsPhrase(facts.variants);
  const variantsCarryType = facts.variants.every(
    (variant) => variant.types.length > 0 && variant.types.every((type) => types.includes(type)),
  );
  return base === '' || variantsCarryType ? forms : `${base}，且为${forms}`;
}

function variantsPhrase(variants: readonly SchemaFacts[]): string {
  const phrases = [...new Set(variants.map(expectedPhrase))];
  if (phrases.length === 1) return phrases[0] ?? '一个值';
  if (phrases.length > maxVariantsListed) return `${phrases.length} 种形式之一`;
  return `以下形式之一：${phrases.join('；')}`;
}

function typePhrase(type: JsonType, facts: SchemaFacts): string {
  switch (type) {
    case 'string':
      return stringPhrase(facts);
    case 'integer':
    case 'number':
      return numberPhrase(type, facts);
    case 'boolean':
      return '布尔值 true 或 false';
    case 'null':
      return 'null';
    case 'object':
      return facts.requiredFields.length === 0
        ? '对象'
        : withDe(`包含必填字段 ${fieldList(facts.requiredFields)}`, '对象');
    case 'array':
      return arrayPhrase(facts);
  }
}

/** 读者按名字认识的格式：直接说值是什么，而不是“email 格式的字符串”。 */
const formatNouns: Readonly<Record<string, string>> = {
  email: '电子邮件地址',
  'idn-email': '电子邮件地址',
  uri: 'URI',
  url: 'URL',
  uuid: 'UUID',
  date: '日期',
  'date-time': '日期时间',
  time: '时间',
  duration: 'ISO 8601 时长',
  ipv4: 'IPv4 地址',
  ipv6: 'IPv6 地址',
  hostname: '主机名',
};

function stringPhrase(facts: SchemaFacts): string {
  const { maxLength, format, pattern } = facts;
  const noun = format === undefined ? undefined : formatNouns[format];
  const minLength = facts.minLength === 0 ? undefined : facts.minLength;
  const traits: string[] = [];
  if (minLength === 1) {
    traits.push('非空');
    if (maxLength !== undefined) traits.push(`最多 ${maxLength} 个字符`);
  } else if (minLength !== undefined && maxLength !== undefined) {
    traits.push(minLength === maxLength ? `长度为 ${minLength} 个字符` : `长度为 ${minLength} 到 ${maxLength} 个字符`);
  } else if (minLength !== undefined) {
    traits.push(`至少 ${minLength} 个字符`);
  } else if (maxLength !== undefined) {
    traits.push(`最多 ${maxLength} 个字符`);
  }
  if (format !== undefined && noun === undefined) traits.push(`${format} 格式`);
  const limits = limitsPhrase(textualLimit(facts.lower), textualLimit(facts.upper));
  if (limits !== '') traits.push(limits);
  if (pattern !== undefined) traits.push(`匹配 ${pattern}`);
  if (noun !== undefined) {
    const named = traits.filter((trait) => trait !== '非空');
    return named.length === 0 ? noun : withDe(named.join('、'), noun);
  }
  if (traits.length === 1 && traits[0] === '非空') return '非空字符串';
  return traits.length === 0 ? '字符串' : withDe(traits.join('、'), '字符串');
}

function numberPhrase(type: 'integer' | 'number', facts: SchemaFacts): string {
  const traits: string[] = [];
  const limits = limitsPhrase(numericLimit(facts.lower), numericLimit(facts.upper));
  if (limits !== '') traits.push(limits);
  if (facts.multipleOf !== undefined) traits.push(`${facts.multipleOf} 的倍数`);
  return traits.length === 0 ? nouns[type] : withDe(traits.join('、'), nouns[type]);
}

function limitsPhrase(lower: SchemaLimit | undefined, upper: SchemaLimit | undefined): string {
  const parts: string[] = [];
  if (lower !== undefined) parts.push(`${lower.inclusive ? '大于等于' : '大于'} ${lower.value}`);
  if (upper !== undefined) parts.push(`${upper.inclusive ? '小于等于' : '小于'} ${upper.value}`);
  return parts.join(' 且');
}

function arrayPhrase(facts: SchemaFacts): string {
  const { minItems, maxItems } = facts;
  const minimum = minItems === 0 ? undefined : minItems;
  const itemTypes = facts.itemTypes.filter((type) => type !== 'number' || !facts.itemTypes.includes('integer'));
  const noun =
    itemTypes.length === 0
      ? '数组'
      : `${spaced(
          ...interleave(
            itemTypes.map((type) => nouns[type]),
            '或',
          ),
        )}数组`;
  const traits: string[] = [];
  if (minimum === 1 && maxItems === undefined) traits.push('非空');
  else if (minimum !== undefined && maxItems !== undefined) {
    traits.push(minimum === maxItems ? `恰好 ${minimum} 项` : `${minimum} 到 ${maxItems} 项`);
  } else if (minimum !== undefined) traits.push(`至少 ${minimum} 项`);
  else if (maxItems !== undefined) traits.push(`最多 ${maxItems} 项`);
  if (facts.uniqueItems) traits.push('元素不重复');
  return traits.length === 0 ? noun : withDe(traits.join('、'), noun);
}

/** 需要 + what is expected, spaced when that starts with ASCII (`需要 date 格式…`). */
function needs(described: string): string {
  return spaced('需要', described);
}

/** `traits` + 的 + `noun`, with a space where ASCII text meets Chinese. */
function withDe(traits: string, noun: string): string {
  return spaced(traits, `的${noun}`);
}

function interleave(parts: readonly string[], separator: string): string[] {
  return parts.flatMap((part, index) => (index === 0 ? [part] : [separator, part]));
}

/** Joins text pieces, putting a space between ASCII and Chinese text (not next to Chinese punctuation). */
function spaced(...parts: string[]): string {
  let text = '';
  for (const part of parts) {
    if (part === '') continue;
    const before = text.at(-1);
    const after = part[0];
    if (before !== undefined && after !== undefined && needsSpace(before, after)) text += ' ';
    text += part;
  }
  return text;
}

function needsSpace(before: string, after: string): boolean {
  const ascii = (character: string) => character.charCodeAt(0) < 128 && character !== ' ';
  const punctuation = (character: string) => '，。、；：（）？！'.includes(character);
  if (punctuation(before) || punctuation(after)) return false;
  return ascii(before) !== ascii(after);
}
