import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.gate_rule';
const symbol = Symbol.for(marker);

/**
 * A gate rule from configuration cannot be used: it names no comparison, an
 * unknown effect, or a tool that is not registered. Raised when the gate is
 * created, so a typo never silently disables a cap. The message names the
 * rule by its position from 1 (and its `rule` name, if it has one).
 *
 * @example
 * throw new GateRuleError({ ruleIndex: 0, ruleName: 'refund cap', problem: 'names tool "aply_refund", which is not registered' });
 * // message: 'gate rule 1 ("refund cap") names tool "aply_refund", which is not registered'
 */
export class GateRuleError extends ArbiterError {
  readonly code = 'gate_rule' as const;
  readonly [symbol] = true;
  /** Position of the rule in the configuration, from 0. */
  readonly ruleIndex: number;
  /** The rule's own name (its `rule` field), when it has one. */
  readonly ruleName: string | undefined;

  constructor({ ruleIndex, ruleName, problem }: { ruleIndex: number; ruleName?: string | undefined; problem: string }) {
    super(`gate rule ${ruleIndex + 1}${ruleName === undefined ? '' : ` ("${ruleName}")`} ${problem}`);
    this.ruleIndex = ruleIndex;
    this.ruleName = ruleName;
  }

  static override isInstance(error: unknown): error is GateRuleError {
    return ArbiterError.hasMarker(error, marker);
  }
}
