import { ArbiterError } from '../errors/arbiter-error.js';

const marker = Symbol.for('arbiter.error.gate_rule');

/**
 * A gate rule from configuration cannot be used: it names no comparison, an
 * unknown effect, or a tool that is not registered. Raised when the gate is
 * created, so a typo never silently disables a cap.
 *
 * @example
 * throw new GateRuleError({ ruleIndex: 0, message: 'rule 1 names tool "aply_refund", which is not registered' });
 */
export class GateRuleError extends ArbiterError {
  readonly code = 'gate_rule' as const;
  readonly [marker] = true;
  /** Position of the rule in the configuration, from 0. */
  readonly ruleIndex: number;

  constructor({ ruleIndex, message }: { ruleIndex: number; message: string }) {
    super(message);
    this.ruleIndex = ruleIndex;
  }

  static override isInstance(value: unknown): value is GateRuleError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
