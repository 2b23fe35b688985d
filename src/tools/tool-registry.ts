import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../core/json-schema.js';
import type { Locale } from '../core/locale.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { compileToolValidator, createAjv, type ToolValidator } from '../validation/compile-tool-validator.js';
import { checkDataScope } from './check-data-scope.js';
import { isStandardSchema, unknownKeysStripped } from './convert-standard-schema.js';
import { fieldDisplayProblems } from './field-display.js';
import type { DataScope, SideEffect, ToolDefinition } from './tool-types.js';

const providerNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;
const sideEffects: readonly SideEffect[] = ['read', 'reversible', 'irreversible'];

/** A tool after registration: its definition, what the model sees, and its compiled validators. */
export interface RegisteredTool {
  readonly definition: ToolDefinition;
  /** The function definition sent to the model; bound parameters removed. */
  readonly spec: ToolSpec;
  readonly boundParameterNames: readonly string[];
  /** Whose data it touches, as declared or as its bindings imply; undefined when neither says. */
  readonly dataScope: DataScope | undefined;
  /** The validator of `spec.function.parameters`, in the given locale. */
  validator(locale: Locale): ToolValidator;
}

/** The tools one model request carries. */
export interface ToolSet {
  readonly names: readonly string[];
  readonly specs: readonly ToolSpec[];
  get(name: string): RegisteredTool | undefined;
}

/** A pinned tool registered again under its name with another definition. */
export interface ToolDefinitionChange {
  readonly name: string;
  readonly oldFingerprint: string;
  readonly newFingerprint: string;
  readonly oldSideEffect: SideEffect;
  readonly newSideEffect: SideEffect;
}

/**
 * Holds the tools of an application and hands out the set a phase needs.
 * Registration rejects a broken definition at once with a clear error.
 *
 * @example
 * const registry = new ToolRegistry();
 * registry.register(queryOrder);
 * registry.register(applyRefund);
 * const lookup = registry.mount({ groups: ['lookup'] }); // only read tools go to the model
 */
export class ToolRegistry implements ToolSet {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #ajv: Ajv2020;
  #allSpecs: readonly ToolSpec[] | undefined;
  /** Per name, the last pinned definition registered under it (kept after `unregister`, to see a change). */
  readonly #pinned = new Map<string, { fingerprint: string; sideEffect: SideEffect }>();
  readonly #definitionListeners = new Set<(change: ToolDefinitionChange) => void>();

  constructor({ ajv = createAjv() }: { ajv?: Ajv2020 } = {}) {
    this.#ajv = ajv;
  }

  /**
   * Adds a tool; throws `ToolDefinitionError` naming the tool and the
   * problem. Besides the shape and the schema, the tool is held to its data
   * scope (see `DataScope`): a tool that binds the user but not the tenant,
   * or declares a tenant scope without binding the tenant, is refused.
   */
  register<Args, Result>(definition: ToolDefinition<Args, Result>): this {
    const tool = definition as unknown as ToolDefinition;
    const name = checkDefinitionShape(tool);
    if (this.#tools.has(name)) {
      throw new ToolDefinitionError({ toolName: name, message: `tool "${name}" is registered twice` });
    }
    const dataScope = checkDataScope(tool);
    const parameters = modelFacingSchema(tool);
    const spec: ToolSpec = {
      type: 'function',
      function: { name, description: tool.description, parameters },
    };
    const validators = new Map<Locale, ToolValidator>();
    const stripUnknownAt = unknownKeysStripped(tool.parameters);
    const ajv = this.#ajv;
    const compile = (locale: Locale): ToolValidator => {
      let validator = validators.get(locale);
      if (validator === undefined) {
        validator = compileToolValidator({ schema: parameters, toolName: name, locale, ajv, stripUnknownAt });
        validators.set(locale, validator);
      }
      return validator;
    };
    compile('en');
    this.#tools.set(name, {
      definition: tool,
      spec,
      boundParameterNames: Object.keys(tool.boundParameters ?? {}),
      dataScope,
      validator: compile,
    });
    this.#allSpecs = undefined;
    if (tool.fingerprint !== undefined) this.#notePinned(name, tool.fingerprint, tool.sideEffect);
    return this;
  }

  /**
   * Calls `listener` whenever a pinned tool (one with a definition
   * fingerprint: a third party's) is registered under a name that last
   * held another definition — a server that redefined it, or took it away
   * and brought it back changed. What the server audits. Returns the
   * unsubscribe.
   *
   * @example
   * registry.onDefinitionChange((change) => audit.append(toolDefinitionChangeEntry(change)));
   */
  onDefinitionChange(listener: (change: ToolDefinitionChange) => void): () => void {
    this.#definitionListeners.add(listener);
    return () => this.#definitionListeners.delete(listener);
  }

  #notePinned(name: string, fingerprint: string, sideEffect: SideEffect): void {
    const before = this.#pinned.get(name);
    this.#pinned.set(name, { fingerprint, sideEffect });
    if (before === undefined || before.fingerprint === fingerprint) return;
    const change: ToolDefinitionChange = {
      name,
      oldFingerprint: before.fingerprint,
      newFingerprint: fingerprint,
      oldSideEffect: before.sideEffect,
      newSideEffect: sideEffect,
    };
    for (const listener of this.#definitionListeners) listener(change);
  }

  /**
   * Removes a tool; true when it was registered. For tools that come and go
   * at run time (an MCP server's, after `tools/list_changed`): a model call
   * to it from then on is answered as an unknown tool.
   */
  unregister(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) this.#allSpecs = undefined;
    return removed;
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  get names(): readonly string[] {
    return [...this.#tools.keys()];
  }

  get specs(): readonly ToolSpec[] {
    this.#allSpecs ??= [...this.#tools.values()].map((tool) => tool.spec);
    return this.#allSpecs;
  }

  /** The group names in use, in registration order. */
  get groups(): readonly string[] {
    const groups = new Set<string>();
    for (const tool of this.#tools.values()) for (const group of tool.definition.groups ?? []) groups.add(group);
    return [...groups];
  }

  /**
   * The tools of the given groups (all tools when `groups` is omitted). A
   * model request carries only these definitions, and a call to any other
   * tool is answered as an unknown tool.
   */
  mount({ groups }: { groups?: readonly string[] } = {}): ToolSet {
    if (groups === undefined) return this;
    const unknown = groups.filter((group) => !this.groups.includes(group));
    if (unknown.length > 0) {
      throw new ToolDefinitionError({
        message: `no tool belongs to group ${unknown.map((group) => `"${group}"`).join(', ')}; groups in use: ${this.groups.join(', ') || 'none'}`,
      });
    }
    const selected = [...this.#tools.values()].filter((tool) =>
      (tool.definition.groups ?? []).some((group) => groups.includes(group)),
    );
    const byName = new Map(selected.map((tool) => [tool.definition.name, tool]));
    const specs = selected.map((tool) => tool.spec);
    return {
      names: [...byName.keys()],
      specs,
      get: (name) => byName.get(name),
    };
  }
}

function checkDefinitionShape(tool: ToolDefinition): string {
  if (typeof tool !== 'object' || tool === null) {
    throw new ToolDefinitionError({ message: 'a tool definition must be an object' });
  }
  const name: unknown = tool.name;
  if (typeof name !== 'string' || !providerNamePattern.test(name)) {
    throw new ToolDefinitionError({
      toolName: typeof name === 'string' ? name : undefined,
      message: `tool name ${JSON.stringify(name)} is not accepted by model providers: use 1-64 characters from a-z, A-Z, 0-9, _ and -, e.g. "query_order"`,
    });
  }
  if (typeof tool.description !== 'string' || tool.description.trim() === '') {
    throw new ToolDefinitionError({
      toolName: name,
      message: `tool "${name}" has no description: say what it does and when not to use it`,
    });
  }
  if (!sideEffects.includes(tool.sideEffect)) {
    throw new ToolDefinitionError({
      toolName: name,
      message: `tool "${name}" has sideEffect ${JSON.stringify(tool.sideEffect)}; expected one of ${sideEffects.join(', ')}`,
    });
  }
  if (typeof tool.execute !== 'function') {
    throw new ToolDefinitionError({ toolName: name, message: `tool "${name}" has no execute function` });
  }
  if (tool.reconcile !== undefined && tool.idempotencyKey === undefined) {
    throw new ToolDefinitionError({
      toolName: name,
      message: `tool "${name}" has reconcile but no idempotencyKey: reconcile asks about a call by its key`,
    });
  }
  const displayProblems = fieldDisplayProblems(tool.display ?? {});
  if (displayProblems.length > 0) {
    throw new ToolDefinitionError({ toolName: name, message: `tool "${name}": ${displayProblems.join('; ')}` });
  }
  const parameters: unknown = tool.parameters;
  if (isStandardSchema(parameters)) {
    throw new ToolDefinitionError({
      toolName: name,
      message: `tool "${name}": parameters is a ${String(parameters['~standard']['vendor'])} schema: pass the definition through defineTool, which converts it into the JSON Schema the model is sent`,
    });
  }
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw new ToolDefinitionError({
      toolName: name,
      message: `tool "${name}": parameters must be a JSON Schema object`,
    });
  }
  if ((parameters as JsonSchema)['type'] !== 'object') {
    throw new ToolDefinitionError({
      toolName: name,
      message: `tool "${name}": parameters must describe an object ({"type": "object", "properties": {...}}), got type ${JSON.stringify((parameters as JsonSchema)['type'])}`,
    });
  }
  return name;
}

/** The schema without the parameters the principal fills: the model never sees them. */
function modelFacingSchema(tool: ToolDefinition): JsonSchema {
  const bound = Object.keys(tool.boundParameters ?? {});
  if (bound.length === 0) return tool.parameters;
  const properties = { ...((tool.parameters['properties'] as Record<string, unknown> | undefined) ?? {}) };
  for (const name of bound) delete properties[name];
  const required = tool.parameters['required'];
  const schema: Record<string, unknown> = { ...tool.parameters, properties };
  if (Array.isArray(required)) schema['required'] = required.filter((name) => !bound.includes(name));
  return schema;
}
