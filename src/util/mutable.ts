/**
 * `Type` with its properties writable: for an object built field by field
 * before it is handed on as the readonly `Type`.
 *
 * @example
 * const options: Mutable<RunAgentOptions> = { model, tools, messages: [] };
 * if (gate !== undefined) options.gate = gate;
 */
export type Mutable<Type> = { -readonly [Key in keyof Type]: Type[Key] };
