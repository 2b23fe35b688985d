import type { Locale } from '../core/locale.js';
import { GateRuleError } from '../errors/gate-rule-error.js';
import type { RegisteredTool, ToolSet } from '../tools/tool-registry.js';
import type { ApprovalVerdict } from '../tools/tool-types.js';
import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/sha256.js';
import { type GateTexts, gateTexts } from './gate-texts.js';
import type { GateDecision, ToolGate } from './tool-gate.js';

/**
 * When a configured rule applies: every comparison given must hold for the
 * value at `field` (a top-level argument, or a dotted path). A value of the
 * wrong type never matches.
 */
export interface GateCondition {
  readonly field: string;
  /** value > above */
  readonly above?: number;
  /** value >= atLeast */
  readonly atLeast?: number;
  /** value < below */
  readonly below?: number;
  /** value <= atMost */
  readonly atMost?: number;
  readonly equals?: string | number | boolean;
  readonly oneOf?: readonly (string | number | boolean)[];
}

/**
 * A permission rule as data (a config file), checked before the tool's own
 * rule. Configuration can only tighten: it denies outright (a hard cap) or
 * sends a call to a person; it never lets through what the tier or the tool
 * would stop.
 */
export interface GateRule {
  /** The tool it applies to, or `*` for every tool. */
  readonly tool: string;
  /** Without `when`, every call of the tool. */
  readonly when?: GateCondition;
  readonly effect: 'deny' | 'require_approval';
  /** The rule's name in audit and approvals, e.g. `refund_hard_cap`. Default `config_rule_N`. */
  readonly rule?: string;
  /** `deny`: what the model reads. `require_approval`: what the approver reads. */
  readonly message: string;
  /** The error code the model sees for `deny`. Default: the rule's name. */
  readonly code?: string;
}

const comparisons = ['above', 'atLeast', 'below', 'atMost', 'equals', 'oneOf'] as const;
const effects = ['deny', 'require_approval'] as const;

/**
 * The side-effect tier gate. `read` and `reversible` calls run (and are
 * audited); an `irreversible` call follows the tool's own `approval` rule
 * (allow → runs, audited as `auto_approved`; require → waits for a person;
 * deny → refused) and without one waits for a person (`irreversible_default`).
 * Configured `rules` are checked first: any matching `deny` refuses the call
 * whatever the tool says; a matching `require_approval` sends it to a person
 * even when the tool's rule would allow it. A tool's rule that throws (or
 * rejects) denies. A tool's rule may be asynchronous, to read
 * `context.history` (what already ran) for a cumulative limit.
 *
 * Pass `tools` to have rules naming an unknown tool rejected at creation.
 *
 * @example
 * const gate = createTierGate({
 *   rules: [{ tool: 'apply_refund', when: { field: 'amount_cents', above: 500_000 }, effect: 'deny',
 *             rule: 'refund_hard_cap', message: 'Refunds above 5000.00 yuan are handled by staff, not in chat.' }],
 *   tools: registry,
 * });
 */
export function createTierGate({
  rules = [],
  tools,
  locale = 'en',
  policyVersion,
}: {
  rules?: readonly GateRule[];
  tools?: ToolSet;
  locale?: Locale;
  /**
   * The version of the rules in force, bound into every approval asked
   * under them (see `ToolGate.policyVersion`). Default: `rules-` and a hash
   * of the configured `rules`, so changing the configuration voids the
   * approvals given but not used yet. Rules written in code (a tool's own
   * `approval`) are not in that hash: give a release id here to void
   * approvals on every deploy of new rules.
   */
  policyVersion?: string;
} = {}): ToolGate {
  const checked = rules.map((rule, index) => checkRule(rule, index, tools));
  const texts = gateTexts(locale);
  const rulesByTool = new Map<string, readonly CheckedRule[]>();
  return {
    policyVersion: policyVersion ?? `rules-${sha256Hex(canonicalJson(checked)).slice(0, 12)}`,
    // A person is asked only through an irreversible tool's default, the tool's own rule, or a configured rule.
    mayRequireApproval: (tool) =>
      tool.definition.sideEffect === 'irreversible' ||
      tool.definition.approval !== undefined ||
      checked.some(
        (rule) => rule.effect === 'require_approval' && (rule.tool === '*' || rule.tool === tool.definition.name),
      ),
    // Synchronous unless the tool's rule is: a call whose rule reads no history costs no extra turn of the event loop.
    check: ({ tool, args, context }): GateDecision | Promise<GateDecision> => {
      const name = tool.definition.name;
      const candidates = rulesFor(name);
      // No configured rule and no rule of its own (most tools): the tier decides, with no closure and no new object.
      if (candidates.length === 0 && tool.definition.approval === undefined) {
        return tool.definition.sideEffect === 'irreversible'
          ? decide({ verdict: undefined, matching: candidates, tool, texts })
          : allowed;
      }
      const matching = candidates.length === 0 ? candidates : candidates.filter((rule) => matches(rule, args));
      const deny = matching.find((rule) => rule.effect === 'deny');
      if (deny !== undefined) {
        return { decision: 'deny', rule: deny.rule, code: deny.code ?? deny.rule, message: deny.message };
      }
      // Most tools have no rule of their own: decided at once, without the closures a rule's verdict needs.
      if (tool.definition.approval === undefined) return decide({ verdict: undefined, matching, tool, texts });
      let verdict: ApprovalVerdict | Promise<ApprovalVerdict> | undefined;
      try {
        verdict = tool.definition.approval(args, context);
      } catch {
        return ruleFailed(texts);
      }
      return verdict instanceof Promise
        ? verdict.then(
            (settled) => decide({ verdict: settled, matching, tool, texts }),
            () => ruleFailed(texts),
          )
        : decide({ verdict, matching, tool, texts });
    },
  };

  /** The configured rules that name `name` or every tool, in their order; worked out once per tool name. */
  function rulesFor(name: string): readonly CheckedRule[] {
    let found = rulesByTool.get(name);
    if (found === undefined) {
      found = checked.filter((rule) => rule.tool === '*' || rule.tool === name);
      rulesByTool.set(name, found);
    }
    return found;
  }
}

/** The tier's answer for a call nothing holds back: one frozen object for every call (nobody changes a decision). */
const allowed: GateDecision = Object.freeze({ decision: 'allow' });

/** The gate's decision once the tool's own rule has answered (or it has none), the matching configured rules first. */
function decide({
  verdict,
  matching,
  tool,
  texts,
}: {
  verdict: ApprovalVerdict | undefined;
  matching: readonly CheckedRule[];
  tool: RegisteredTool;
  texts: GateTexts;
}): GateDecision {
  if (verdict?.verdict === 'deny') {
    return { decision: 'deny', rule: verdict.rule, code: verdict.rule, message: verdict.message };
  }
  const review = matching.find((rule) => rule.effect === 'require_approval');
  if (review !== undefined) return { decision: 'require_approval', rule: review.rule, reason: review.message };
  if (verdict?.verdict === 'require_approval') {
    return { decision: 'require_approval', rule: verdict.rule, reason: verdict.reason };
  }
  if (verdict?.verdict === 'allow') {
    return tool.definition.sideEffect === 'irreversible'
      ? { decision: 'allow', rule: verdict.rule }
      : { decision: 'allow' };
  }
  if (tool.definition.sideEffect === 'irreversible') {
    return {
      decision: 'require_approval',
      rule: 'irreversible_default',
      reason: texts.irreversibleDefault({ tool: tool.definition.name }),
    };
  }
  return { decision: 'allow' };
}

/** A tool's own rule threw or rejected: the call is denied. */
function ruleFailed(texts: GateTexts): GateDecision {
  return { decision: 'deny', rule: 'approval_rule_failed', code: 'approval_rule_failed', message: texts.ruleFailed() };
}

interface CheckedRule extends GateRule {
  readonly rule: string;
}

function checkRule(rule: GateRule, index: number, tools: ToolSet | undefined): CheckedRule {
  const fail = (problem: string): never => {
    throw new GateRuleError({ ruleIndex: index, ruleName: rule.rule, problem });
  };
  if (typeof rule.tool !== 'string' || rule.tool === '') fail('names no tool; use a tool name or "*"');
  if (!effects.includes(rule.effect)) {
    fail(`has effect ${JSON.stringify(rule.effect)}; expected one of ${effects.join(', ')}`);
  }
  if (typeof rule.message !== 'string' || rule.message.trim() === '') fail('has no message');
  if (tools !== undefined && rule.tool !== '*' && tools.get(rule.tool) === undefined) {
    fail(`names tool "${rule.tool}", which is not registered; registered: ${tools.names.join(', ')}`);
  }
  const when = rule.when;
  if (when !== undefined) {
    if (typeof when.field !== 'string' || when.field === '') fail('has a "when" without a field');
    if (!comparisons.some((comparison) => when[comparison] !== undefined)) {
      fail(`compares "${when.field}" with nothing; give one of ${comparisons.join(', ')}`);
    }
    for (const bound of ['above', 'atLeast', 'below', 'atMost'] as const) {
      const value = when[bound];
      if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
        fail(`has ${bound}: ${JSON.stringify(value)}; expected a number`);
      }
    }
  }
  return { ...rule, rule: rule.rule ?? `config_rule_${index + 1}` };
}

function matches(rule: GateRule, args: Readonly<Record<string, unknown>>): boolean {
  const when = rule.when;
  if (when === undefined) return true;
  const value = readPath(args, when.field);
  if (value === undefined) return false;
  const numeric = typeof value === 'number' ? value : undefined;
  if (when.above !== undefined && !(numeric !== undefined && numeric > when.above)) return false;
  if (when.atLeast !== undefined && !(numeric !== undefined && numeric >= when.atLeast)) return false;
  if (when.below !== undefined && !(numeric !== undefined && numeric < when.below)) return false;
  if (when.atMost !== undefined && !(numeric !== undefined && numeric <= when.atMost)) return false;
  if (when.equals !== undefined && value !== when.equals) return false;
  if (when.oneOf !== undefined && !when.oneOf.some((candidate) => candidate === value)) return false;
  return true;
}

function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
