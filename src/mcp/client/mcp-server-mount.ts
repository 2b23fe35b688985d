import { SdkError, SdkErrorCode, type Tool } from '@modelcontextprotocol/client';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../../core/json-schema.js';
import type { Principal } from '../../core/principal.js';
import { FatalToolError } from '../../errors/fatal-tool-error.js';
import { ToolDefinitionError } from '../../errors/tool-definition-error.js';
import { ToolTimeoutError } from '../../errors/tool-timeout-error.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { SideEffect, ToolContext, ToolDefinition } from '../../tools/tool-types.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { isRecord } from '../../util/is-record.js';
import { sha256Hex } from '../../util/sha256.js';
import { createAjv } from '../../validation/compile-tool-validator.js';
import { checkCallToolResult } from './check-call-tool-result.js';
import { checkMcpSchema, maxSchemaChars } from './check-mcp-schema.js';
import { McpConnection, type McpToolListing } from './mcp-connection.js';
import { McpConnectionError } from './mcp-connection-error.js';
import { McpResultError } from './mcp-result-error.js';
import type { McpCredentials, McpServerConfig } from './mcp-server-config.js';
import { mcpTexts } from './mcp-texts.js';
import { type McpTier, mcpTier, stricterTier } from './mcp-tier.js';
import { mcpToolFingerprint } from './mcp-tool-fingerprint.js';
import { mcpToolName } from './mcp-tool-name.js';
import { mcpToolResult } from './mcp-tool-result.js';

/** Characters of a tool's description passed to the model; a third party's text is kept short. */
export const maxDescriptionChars = 1200;
const defaultTimeoutMs = 60_000;

/** One MCP tool as mounted: its arbiter name and definition, and what it was made from. */
export interface MountedMcpTool {
  /** The arbiter tool name, `<server>_<tool>`. */
  readonly name: string;
  readonly server: string;
  /** The name the server knows it by. */
  readonly mcpName: string;
  readonly tier: MountedTier;
  readonly definition: ToolDefinition;
  /**
   * sha256 of the canonical JSON of what the model and the gate see of it:
   * name, description, input and output schema, annotations, the tier
   * decided. Any change to one of them is a different tool.
   */
  readonly fingerprint: string;
  /** The server's `outputSchema`, kept as sent; `structuredContent` is checked against it. */
  readonly outputSchema: JsonSchema | undefined;
  /** What was changed or ignored to mount it (a dropped `$schema`, a cut description, an ignored tier). */
  readonly notes: readonly string[];
}

/** A mounted tool's tier: `mcpTier`'s, or a stricter one kept from before a re-listing. */
export interface MountedTier extends McpTier {
  /** Set when an untrusted server re-listed the tool less strict after mount: the tier it asked for, not applied. */
  readonly loosenedTierIgnored?: SideEffect;
}

/** A tool of the server that was not mounted, and why. */
export interface McpToolRefusal {
  readonly server: string;
  readonly tool: string;
  /** Where in the tool the problem is: `inputSchema`, `properties.code.pattern`, `name`. */
  readonly field: string;
  /** `MCP server "…", tool "…", field "…": …` */
  readonly message: string;
}

/** What a refresh changed, by arbiter tool name. */
export interface McpToolChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  /** Each changed tool's fingerprints and tiers, before and after (for the log and the audit). */
  readonly definitions: readonly McpDefinitionChange[];
}

/** One tool whose definition changed on the server after it was mounted. */
export interface McpDefinitionChange {
  /** The arbiter tool name. */
  readonly name: string;
  readonly oldFingerprint: string;
  readonly newFingerprint: string;
  readonly oldTier: SideEffect;
  readonly newTier: SideEffect;
  /** Set when the server re-listed it less strict and is not trusted: the tier it asked for, not applied. */
  readonly loosenedTierIgnored?: SideEffect;
}

/**
 * One MCP server's tools, mounted as arbiter tools behind arbiter's
 * validation, gate, approvals, idempotency and audit. Each tool's
 * `inputSchema` is checked (see `checkMcpSchema`) and compiled by the
 * registry like a native tool's; a tool that fails is refused with a
 * message naming server, tool and field, and the others are mounted. The
 * tier comes from the annotations (see `mcpTier`); a tool that is not
 * `read` gets an idempotency key from its name and canonical arguments, so
 * a repeated call of the same principal returns the first outcome
 * instead of acting twice.
 *
 * Calls go over one shared connection, or, with `perPrincipal`, over a
 * connection per principal opened with that principal's credentials (a
 * principal without any cannot call). `notifications/tools/list_changed`
 * refreshes the tools, and registries they were attached to follow.
 *
 * @example
 * const everything = await McpServerMount.open({ server: { name: 'everything', command: 'mcp-server-everything' } });
 * const registry = new ToolRegistry();
 * everything.attach(registry);
 * await runAgent({ model, tools: registry, messages, gate: createTierGate({ tools: registry }) });
 * await everything.close();
 */
export class McpServerMount {
  readonly server: McpServerConfig;
  readonly #shared: McpConnection;
  readonly #perPrincipal = new Map<string, McpConnection>();
  readonly #inFlight = new Map<McpConnection, number>();
  readonly #registries = new Set<ToolRegistry>();
  readonly #onChange: ((changes: McpToolChanges) => void) | undefined;
  readonly #reserved: ReadonlySet<string>;
  #tools: readonly MountedMcpTool[] = [];
  /** Per server-side tool name, the fingerprint of the definition mounted now. */
  readonly #fingerprints = new Map<string, string>();
  /** Per server-side tool name, the tier it was last mounted with (never forgotten while the mount lives). */
  readonly #tiersMounted = new Map<string, SideEffect>();
  #refusals: readonly McpToolRefusal[] = [];
  #refreshing: Promise<McpToolChanges> | undefined;
  #refreshAgain = false;
  #closed = false;

  private constructor({
    server,
    reserved,
    onChange,
  }: {
    server: McpServerConfig;
    reserved: ReadonlySet<string>;
    onChange: ((changes: McpToolChanges) => void) | undefined;
  }) {
    this.server = server;
    this.#reserved = reserved;
    this.#onChange = onChange;
    this.#shared = new McpConnection({ server, onToolsChanged: () => this.#changedOnServer() });
  }

  /**
   * Connects, lists every tool (all pages) and builds their definitions.
   * An unreachable server rejects with `McpConnectionError`.
   */
  static async open({
    server,
    reserved = new Set(),
    onChange,
  }: {
    server: McpServerConfig;
    /** Tool names already in use (native tools, other servers): a mounted name never takes one. */
    reserved?: ReadonlySet<string>;
    /** Called after `tools/list_changed` was applied. */
    onChange?: (changes: McpToolChanges) => void;
  }): Promise<McpServerMount> {
    const mount = new McpServerMount({ server, reserved, onChange });
    try {
      await mount.refresh();
    } catch (error) {
      await mount.close();
      throw error;
    }
    return mount;
  }

  get tools(): readonly MountedMcpTool[] {
    return this.#tools;
  }

  get refusals(): readonly McpToolRefusal[] {
    return this.#refusals;
  }

  get definitions(): readonly ToolDefinition[] {
    return this.#tools.map((tool) => tool.definition);
  }

  /** The shared connection (listing, and calls when credentials are not per principal). */
  get connection(): McpConnection {
    return this.#shared;
  }

  /** Principals with a connection of their own open now, as `tenantId/userId`. */
  get principalConnections(): readonly string[] {
    return [...this.#perPrincipal.keys()];
  }

  /**
   * Registers the tools in `registry` and keeps them in step with the
   * server: after a list change, removed tools are unregistered, changed
   * ones replaced, new ones added.
   */
  attach(registry: ToolRegistry): void {
    for (const tool of this.#tools) registry.register(tool.definition);
    this.#registries.add(registry);
  }

  /** Lists the tools again and applies the difference (what a `tools/list_changed` does). */
  refresh(): Promise<McpToolChanges> {
    if (this.#refreshing !== undefined) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    const running = this.#refreshOnce().finally(() => {
      this.#refreshing = undefined;
      if (this.#refreshAgain && !this.#closed) {
        this.#refreshAgain = false;
        void this.refresh().catch(() => {});
      }
    });
    this.#refreshing = running;
    return running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const connections = [this.#shared, ...this.#perPrincipal.values()];
    this.#perPrincipal.clear();
    await Promise.all(connections.map((connection) => connection.close()));
  }

  async #refreshOnce(): Promise<McpToolChanges> {
    const listed = await this.#list();
    const before = new Map(this.#tools.map((tool) => [tool.name, tool]));
    const { tools, refusals } = this.#build(listed.tools);
    for (const refused of listed.refused) {
      refusals.unshift({
        server: this.server.name,
        tool: refused.tool,
        field: 'inputSchema',
        message: `MCP server "${this.server.name}", tool "${refused.tool}": ${refused.problem}`,
      });
    }
    const after = new Map(tools.map((tool) => [tool.name, tool]));
    const added = [...after.keys()].filter((name) => !before.has(name));
    const removed = [...before.keys()].filter((name) => !after.has(name));
    const changed = [...after.keys()].filter((name) => {
      const previous = before.get(name);
      return previous !== undefined && previous.fingerprint !== (after.get(name) as MountedMcpTool).fingerprint;
    });
    const definitions = changed.map((name): McpDefinitionChange => {
      const previous = before.get(name) as MountedMcpTool;
      const next = after.get(name) as MountedMcpTool;
      return {
        name,
        oldFingerprint: previous.fingerprint,
        newFingerprint: next.fingerprint,
        oldTier: previous.tier.sideEffect,
        newTier: next.tier.sideEffect,
        ...(next.tier.loosenedTierIgnored === undefined ? {} : { loosenedTierIgnored: next.tier.loosenedTierIgnored }),
      };
    });
    for (const registry of this.#registries) {
      for (const name of [...removed, ...changed]) registry.unregister(name);
      for (const name of [...changed, ...added]) registry.register((after.get(name) as MountedMcpTool).definition);
    }
    // Tools that did not change keep their definition object: registries hold those.
    this.#tools = tools.map((tool) => (changed.includes(tool.name) ? tool : (before.get(tool.name) ?? tool)));
    this.#refusals = refusals;
    this.#fingerprints.clear();
    for (const tool of this.#tools) {
      this.#tiersMounted.set(tool.mcpName, tool.tier.sideEffect);
      this.#fingerprints.set(tool.mcpName, tool.fingerprint);
    }
    return { added, removed, changed, definitions };
  }

  /** The server's checked listing; a listing that fails for any reason says so naming the server. */
  async #list(): Promise<McpToolListing> {
    try {
      return await this.#shared.listTools();
    } catch (error) {
      if (McpConnectionError.isInstance(error)) throw error;
      throw new McpConnectionError({
        server: this.server.name,
        message: `MCP server "${this.server.name}" could not list its tools: ${error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300)}`,
        cause: error,
      });
    }
  }

  #changedOnServer(): void {
    if (this.#closed) return;
    this.refresh().then(
      (changes) => this.#onChange?.(changes),
      () => {
        // The next list change, or the next refresh, tries again; calls keep using the tools already mounted.
      },
    );
  }

  #build(listed: readonly Tool[]): { tools: MountedMcpTool[]; refusals: McpToolRefusal[] } {
    const server = this.server;
    const taken = new Set(this.#reserved);
    const tools: MountedMcpTool[] = [];
    const refusals: McpToolRefusal[] = [];
    const refuse = (tool: string, field: string, problem: string) =>
      refusals.push({
        server: server.name,
        tool,
        field,
        message: `MCP server "${server.name}", tool "${tool}", field "${field}": ${problem}`,
      });
    const scratch = new ToolRegistry();
    const seen = new Set<string>();
    for (const tool of listed) {
      const mcpName = typeof tool.name === 'string' ? tool.name : '';
      if (mcpName === '' || mcpName.length > 128) {
        refuse(mcpName.slice(0, 40), 'name', 'must be 1-128 characters');
        continue;
      }
      if (seen.has(mcpName)) {
        refuse(mcpName, 'name', 'is listed twice by the server; the first is mounted');
        continue;
      }
      seen.add(mcpName);
      const override = server.tools?.[mcpName];
      if (override?.disabled === true) continue;
      const schema = checkMcpSchema(tool.inputSchema);
      if (!schema.ok) {
        refuse(mcpName, schema.field, schema.problem);
        continue;
      }
      const notes = [...schema.notes];
      const decided = mcpTier({
        annotations: tool.annotations,
        override: override?.sideEffect,
        trusted: server.trusted === true,
      });
      // After mount, an untrusted server's tool keeps the stricter of its tier before and the one re-listed.
      // Removed and listed again later counts too: the tier it had when last mounted.
      const previous = this.#tiersMounted.get(mcpName);
      const kept =
        previous === undefined || server.trusted === true
          ? decided.sideEffect
          : stricterTier(previous, decided.sideEffect);
      const tier: MountedTier =
        kept === decided.sideEffect
          ? decided
          : { ...decided, sideEffect: kept, loosenedTierIgnored: decided.sideEffect };
      if (tier.loosenedTierIgnored !== undefined) {
        notes.push(
          `tier "${kept}" kept: the server re-listed it as "${tier.loosenedTierIgnored}" after it was mounted, and the server is not trusted`,
        );
      }
      if (tier.ignoredOverride !== undefined) {
        notes.push(
          `configured tier "${tier.ignoredOverride}" ignored: less strict than the annotations' "${tier.fromAnnotations}" and the server is not trusted`,
        );
      }
      const output = outputValidator(tool.outputSchema);
      if (output.note !== undefined) notes.push(output.note);
      const name = mcpToolName({ server: server.name, tool: mcpName, taken });
      const description = describe(tool, server.name);
      if (description.cut) notes.push(`description cut to ${maxDescriptionChars} characters`);
      const definition = this.#definition({
        name,
        mcpName,
        description: description.text,
        parameters: schema.schema,
        sideEffect: tier.sideEffect,
        timeoutMs: override?.timeoutMs ?? server.timeoutMs ?? defaultTimeoutMs,
        validateOutput: output.validate,
        listed: tool,
        fingerprint: mcpToolFingerprint({
          name,
          description: description.text,
          inputSchema: schema.schema,
          outputSchema: tool.outputSchema,
          annotations: tool.annotations,
          sideEffect: tier.sideEffect,
        }),
      });
      try {
        scratch.register(definition);
      } catch (error) {
        if (!ToolDefinitionError.isInstance(error)) throw error;
        refuse(mcpName, fieldFromMessage(error.message), error.message.replace(/^tool "[^"]*":\s*/, ''));
        continue;
      }
      taken.add(name);
      tools.push({
        name,
        server: server.name,
        mcpName,
        tier,
        definition,
        fingerprint: definition.fingerprint as string,
        outputSchema: isRecord(tool.outputSchema) ? (tool.outputSchema as JsonSchema) : undefined,
        notes,
      });
    }
    return { tools, refusals };
  }

  #definition({
    name,
    mcpName,
    description,
    parameters,
    sideEffect,
    timeoutMs,
    validateOutput,
    listed,
    fingerprint,
  }: {
    name: string;
    mcpName: string;
    description: string;
    parameters: JsonSchema;
    sideEffect: SideEffect;
    timeoutMs: number;
    validateOutput: ValidateFunction | undefined;
    /** The tool as the server listed it. */
    listed: Tool;
    fingerprint: string;
  }): ToolDefinition {
    const server = this.server;
    // Arbiter checks `structuredContent` itself (linear-time patterns): the SDK gets the tool without its outputSchema.
    const { outputSchema: _checkedHere, ...toolDefinition } = listed;
    // A result that cannot be used: the model is told of a read's (it changed nothing); a call that may have
    // acted ends the run, its idempotency key still claimed, so that it is never sent twice.
    const unusable = (
      code: 'mcp_invalid_result' | 'mcp_invalid_output',
      problem: string,
      locale: ToolContext['locale'],
      cause?: unknown,
    ): Error => {
      if (sideEffect !== 'read') return new McpResultError({ server: server.name, tool: mcpName, problem, cause });
      const texts = mcpTexts(locale);
      const message =
        code === 'mcp_invalid_output'
          ? texts.invalidOutput({ server: server.name })
          : texts.invalidResult({ server: server.name, problem });
      return new FatalToolError({ code, message, cause });
    };
    return {
      name,
      description,
      parameters,
      sideEffect,
      fingerprint,
      timeoutMs,
      // The SDK keeps a timer per request anyway: the runtime adds no timer or abort signal of its own.
      enforcesTimeout: true,
      // A read changed nothing: a timed-out or cut-off one may be asked again.
      retrySafe: sideEffect === 'read',
      // Another party's content: after it, egress calls wait for a person (unless the server is trusted).
      ...(server.trusted === true ? {} : { untrustedOutput: `MCP server ${server.name}` }),
      ...(sideEffect === 'read'
        ? {}
        : {
            idempotencyKey: (args: Record<string, unknown>) =>
              `mcp:${server.name}:${mcpName}:${sha256Hex(canonicalJson(args))}`,
          }),
      execute: async (args: Record<string, unknown>, context: ToolContext) => {
        // Checked (and perhaps approved) under this definition: under another one, nothing is sent.
        if (this.#fingerprints.get(mcpName) !== fingerprint) {
          throw new FatalToolError({
            code: 'tool_changed',
            message: mcpTexts(context.locale).toolChanged({ server: server.name }),
          });
        }
        const connection = this.#connectionFor(context.principal, context.locale);
        // Only per-principal connections are evicted, so only theirs are counted.
        const counted = connection !== this.#shared;
        if (counted) this.#inFlight.set(connection, (this.#inFlight.get(connection) ?? 0) + 1);
        try {
          const answer = await connection.callTool(mcpName, args, {
            signal: context.signal,
            timeoutMs,
            retryInFlight: sideEffect === 'read',
            toolDefinition,
            // A context that takes no progress gets a request without a progress token.
            onProgress: context.reportProgress,
          });
          const checked = checkCallToolResult(answer);
          if (!checked.ok) throw unusable('mcp_invalid_result', checked.problem, context.locale);
          const result = checked.result;
          if (
            validateOutput !== undefined &&
            result.isError !== true &&
            result.structuredContent !== undefined &&
            !validateOutput(result.structuredContent)
          ) {
            throw unusable('mcp_invalid_output', 'structuredContent does not match the outputSchema', context.locale);
          }
          return mcpToolResult({ result, server: server.name, locale: context.locale });
        } catch (error) {
          // The SDK reports a time limit and an abort alike; only a call the run did not stop ran out of time.
          if (isRequestTimeout(error) && !context.signal.aborted) {
            throw new ToolTimeoutError({ toolName: name, timeoutMs, cause: error });
          }
          // The SDK's own check of a result (a tool it sends through callTool) is treated like arbiter's.
          if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
            throw unusable('mcp_invalid_result', error.message, context.locale, error);
          }
          throw error;
        } finally {
          if (counted) {
            const count = (this.#inFlight.get(connection) ?? 1) - 1;
            if (count === 0) this.#inFlight.delete(connection);
            else this.#inFlight.set(connection, count);
          }
        }
      },
    };
  }

  #connectionFor(principal: Principal | undefined, locale: ToolContext['locale']): McpConnection {
    const perPrincipal = this.server.perPrincipal;
    if (perPrincipal === undefined) return this.#shared;
    const refuse = () =>
      new FatalToolError({
        code: 'mcp_no_credentials',
        message: mcpTexts(locale).noCredentials({ server: this.server.name }),
      });
    if (principal === undefined) throw refuse();
    // The key is exact: a principal is never served by another's connection.
    const key = JSON.stringify([principal.tenantId, principal.userId]);
    const open = this.#perPrincipal.get(key);
    if (open !== undefined) {
      this.#perPrincipal.delete(key);
      this.#perPrincipal.set(key, open);
      return open;
    }
    const credentials: McpCredentials | undefined = perPrincipal(principal);
    if (credentials === undefined) throw refuse();
    const connection = new McpConnection({ server: this.server, credentials });
    this.#perPrincipal.set(key, connection);
    this.#evictIdle();
    return connection;
  }

  #evictIdle(): void {
    const limit = this.server.maxConnections ?? 32;
    for (const [key, connection] of this.#perPrincipal) {
      if (this.#perPrincipal.size <= limit) return;
      if ((this.#inFlight.get(connection) ?? 0) > 0) continue;
      this.#perPrincipal.delete(key);
      void connection.close();
    }
  }
}

function describe(tool: Tool, server: string): { text: string; cut: boolean } {
  const given = typeof tool.description === 'string' && tool.description.trim() !== '' ? tool.description.trim() : '';
  const title = typeof tool.title === 'string' ? tool.title.trim() : '';
  const text = given !== '' ? given : title !== '' ? title : `The "${tool.name}" tool of MCP server "${server}".`;
  return text.length > maxDescriptionChars
    ? { text: `${text.slice(0, maxDescriptionChars - 1)}…`, cut: true }
    : { text, cut: false };
}

/**
 * A validator for `structuredContent`, or why there is none. arbiter's ajv
 * matches patterns in linear time; the SDK's own check would run the
 * server's patterns on a backtracking engine, so it is switched off.
 */
function outputValidator(schema: unknown): { validate: ValidateFunction | undefined; note?: string } {
  if (!isRecord(schema)) return { validate: undefined };
  if (JSON.stringify(schema).length > maxSchemaChars) {
    return { validate: undefined, note: `outputSchema not checked: above the ${maxSchemaChars / 1024} KB limit` };
  }
  const { $schema: _dialect, ...rest } = schema;
  const ajv = outputAjv();
  try {
    return { validate: ajv.compile(rest) };
  } catch (error) {
    return {
      validate: undefined,
      note: `outputSchema not checked: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`,
    };
  } finally {
    ajv.removeSchema(rest);
  }
}

let sharedOutputAjv: ReturnType<typeof createAjv> | undefined;
function outputAjv(): ReturnType<typeof createAjv> {
  sharedOutputAjv ??= createAjv();
  return sharedOutputAjv;
}

function fieldFromMessage(message: string): string {
  const match = /at parameters(\/\S+)/.exec(message);
  return match?.[1] === undefined ? 'inputSchema' : match[1].slice(1).replaceAll('/', '.');
}

function isRequestTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}
