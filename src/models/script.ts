/**
 * A scripted conversation: what the offline model intends to do for each
 * user turn. Data, not code: it can live in a JSON file.
 *
 * String values in `call.arguments` and `say` may use `{{tool.field}}` to
 * quote a field of the latest successful result of `tool` in this turn,
 * the way a model would quote what it read.
 */
export interface Script {
  readonly name: string;
  readonly turns: readonly ScriptTurn[];
  /** What the model does with an error that names no field it can fix. Default `repeat`. */
  readonly onUnclearError?: 'repeat' | 'give_up';
  /** How often it repeats an identical failing call before giving up. Default 1. */
  readonly maxRepeats?: number;
  /** Said when it gives up. */
  readonly giveUp?: string;
  /** Said when a field needs a value only the user can give; `{field}` and `{example}` are filled in. */
  readonly askUser?: string;
  /** Said when a call is refused for good; `{reason}` is the refusal's explanation. */
  readonly onRefusal?: string;
}

export interface ScriptTurn {
  /** Chooses this turn when the user's latest message matches (case-insensitive regex). Otherwise turns go in order. */
  readonly when?: string;
  readonly steps: readonly ScriptStep[];
}

export type ScriptStep =
  | { readonly call: { readonly name: string; readonly arguments: unknown } }
  | {
      readonly say: string;
      /**
       * Said instead of `say` when the call just before answered that it had
       * already run (`already_done`: its idempotency key ran it earlier, nothing
       * ran again), filled in from that answer as `say` is.
       */
      readonly alreadyDone?: string;
    };
