import { randomUUID } from 'node:crypto';
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import type { JsonSchema } from '../../core/json-schema.js';
import { ToolTimeoutError } from '../../errors/tool-timeout-error.js';
import { mcpTier } from '../../mcp/client/mcp-tier.js';
import { mcpToolName } from '../../mcp/client/mcp-tool-name.js';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import type { SideEffect, ToolContext, ToolDefinition } from '../../tools/tool-types.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { sha256Hex } from '../../util/sha256.js';
import type { A2aAgentConfig } from './a2a-agent-config.js';
import { A2aConnectionError } from './a2a-connection-error.js';
import { a2aContextId } from './a2a-context-id.js';
import { a2aMessageId } from './a2a-message-id.js';
import { a2aOriginFetch } from './a2a-origin-fetch.js';
import { a2aSkillFingerprint } from './a2a-skill-fingerprint.js';
import { type A2aAnswer, a2aTaskOutcome } from './a2a-task-outcome.js';
import { callA2aSkill } from './call-a2a-skill.js';
import { type A2aEndpoint, chooseA2aEndpoint } from './choose-a2a-endpoint.js';
import { reconcileA2aCall } from './reconcile-a2a-call.js';

/** Characters of a skill's description passed to the model; a third party's text is kept short. */
const maxDescriptionChars = 1200;
const defaultTimeoutMs = 120_000;
/** Write calls whose task id is remembered (for `reconcile`), the oldest forgotten first. */
const maxRememberedTasks = 1000;

/** The arguments every A2A skill's tool takes. */
export const a2aSkillParameters: JsonSchema = {
  type: 'object',
  properties: {
    message: {
      type: 'string',
      minLength: 1,
      maxLength: 8000,
      description:
        'What to ask the agent, in plain words, with every detail it needs (order numbers, amounts, reasons): it cannot see this conversation.',
      examples: ['Refund 20.00 yuan on order SO20260901: the teapot arrived cracked.'],
    },
  },
  required: ['message'],
  additionalProperties: false,
};

/** One skill of the agent as mounted: its arbiter name and definition, and what it was made from. */
export interface MountedA2aSkill {
  /** The arbiter tool name, `<agent>_<skill>`. */
  readonly name: string;
  readonly agent: string;
  /** The skill's id on the Agent Card. */
  readonly skillId: string;
  readonly sideEffect: SideEffect;
  readonly definition: ToolDefinition;
  /** See `a2aSkillFingerprint`. */
  readonly fingerprint: string;
  /** What was changed or ignored to mount it (a cut description, an ignored tier). */
  readonly notes: readonly string[];
}

/**
 * Another agent's skills, mounted as arbiter tools from its Agent Card,
 * behind arbiter's validation, gate, approvals, idempotency and audit, and
 * called with the official `@a2a-js/sdk` client (JSON-RPC or HTTP+JSON, as
 * the card offers). Each skill becomes `<name>_<skill>` taking
 * `{ "message": "…" }`, in the `irreversible` tier unless the config gives
 * another (less strict only for a `trusted` agent). A call sends the
 * message, reports the task's status updates as the call's progress, and
 * returns the final artifact as its result (`a2aTaskOutcome`: a task that
 * ends otherwise is a tool error). A call that is not a `read` has an
 * idempotency key from its arguments, and its A2A `messageId` is derived
 * from that key as the runtime scopes it (`a2aMessageId`), and it is sent
 * in a context of its own (`a2aContextId`). A call whose answer was lost
 * is reconciled by asking the agent (`reconcileA2aCall`): a completed
 * task is its result; otherwise it is not sent again but waits for a
 * person, unless the entry says the agent deduplicates message ids
 * (`deduplicatesMessageIds`, as an arbiter agent does), when the same
 * message is sent again and answered with the first send's task.
 * Requests go only to the card URL's origin and the entry's
 * `allowedOrigins` (`a2aOriginFetch`, `chooseA2aEndpoint`), and the
 * endpoint used is part of each skill's fingerprint.
 *
 * @example
 * const billing = await A2aAgentMount.open({ agent: { name: 'billing', agentCard: 'http://127.0.0.1:8787/.well-known/agent-card.json', bearer: token } });
 * billing.attach(registry);
 */
export class A2aAgentMount {
  readonly agent: A2aAgentConfig;
  readonly card: AgentCard;
  /** The interface of the card its calls go to (an allowed origin's). */
  readonly endpoint: A2aEndpoint;
  readonly skills: readonly MountedA2aSkill[];
  readonly #client: Client;
  /** The task each write call's message started, by message id, as this process saw the agent name it. */
  readonly #startedTasks = new Map<string, string>();

  private constructor({
    agent,
    card,
    endpoint,
    client,
    reserved,
  }: {
    agent: A2aAgentConfig;
    card: AgentCard;
    endpoint: A2aEndpoint;
    client: Client;
    reserved: ReadonlySet<string>;
  }) {
    this.agent = agent;
    this.card = card;
    this.endpoint = endpoint;
    this.#client = client;
    this.skills = this.#build(reserved);
  }

  /**
   * Reads the Agent Card and builds a tool per skill. A card that cannot be
   * read (or only by a redirect to an origin not allowed), or offers no
   * transport the SDK speaks at an allowed origin, rejects with
   * `A2aConnectionError` naming the agent and the URL.
   */
  static async open({
    agent,
    reserved = new Set(),
    fetchImpl = fetch,
  }: {
    agent: A2aAgentConfig;
    /** Tool names already in use: a mounted name never takes one. */
    reserved?: ReadonlySet<string>;
    fetchImpl?: typeof fetch;
  }): Promise<A2aAgentMount> {
    const extra: Record<string, string> = {
      ...agent.headers,
      ...(agent.bearer === undefined ? {} : { Authorization: `Bearer ${agent.bearer}` }),
    };
    const origins = new Set([new URL(agent.agentCard).origin, ...(agent.allowedOrigins ?? [])]);
    const withCredentials = a2aOriginFetch({ agent: agent.name, origins, headers: extra, fetchImpl });
    try {
      const card = await new DefaultAgentCardResolver({ fetchImpl: withCredentials }).resolve(
        agent.agentCard,
        agent.agentCard,
      );
      const { endpoint, refused } = chooseA2aEndpoint({ card, origins });
      if (endpoint === undefined) {
        throw new Error(
          refused.length === 0
            ? 'it names no JSON-RPC or HTTP+JSON endpoint'
            : `it names no endpoint at an allowed origin, only ${refused
                .slice(0, 3)
                .map((url) => JSON.stringify(url.slice(0, 200)))
                .join(', ')}; add its origin to "allowedOrigins" if that is meant`,
        );
      }
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [
            new JsonRpcTransportFactory({ fetchImpl: withCredentials }),
            new RestTransportFactory({ fetchImpl: withCredentials }),
          ],
        }),
      );
      // Only the chosen interface is handed on: the SDK cannot pick another.
      const client = await factory.createFromAgentCard({ ...card, supportedInterfaces: [endpoint] });
      return new A2aAgentMount({ agent, card, endpoint, client, reserved });
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new A2aConnectionError({
        agent: agent.name,
        message: `A2A agent "${agent.name}": its Agent Card at ${agent.agentCard} could not be used (${problem.length > 300 ? `${problem.slice(0, 300)}…` : problem})`,
        cause: error,
      });
    }
  }

  get definitions(): readonly ToolDefinition[] {
    return this.skills.map((skill) => skill.definition);
  }

  /** Registers the skills' tools in `registry`. */
  attach(registry: ToolRegistry): void {
    for (const skill of this.skills) registry.register(skill.definition);
  }

  /** Notes the task a write call's message started, for `reconcile` to ask about. */
  #remember(messageId: string, taskId: string): void {
    this.#startedTasks.delete(messageId);
    this.#startedTasks.set(messageId, taskId);
    for (const oldest of this.#startedTasks.keys()) {
      if (this.#startedTasks.size <= maxRememberedTasks) break;
      this.#startedTasks.delete(oldest);
    }
  }

  #build(reserved: ReadonlySet<string>): MountedA2aSkill[] {
    const agent = this.agent;
    const taken = new Set(reserved);
    const mounted: MountedA2aSkill[] = [];
    const seen = new Set<string>();
    for (const skill of this.card.skills) {
      if (skill.id === '' || seen.has(skill.id)) continue;
      seen.add(skill.id);
      const override = agent.skills?.[skill.id];
      if (override?.disabled === true) continue;
      const notes: string[] = [];
      // No annotations: a skill is irreversible until config says otherwise (and only a trusted agent's lowers it).
      const tier = mcpTier({ annotations: undefined, override: override?.sideEffect, trusted: agent.trusted === true });
      if (tier.ignoredOverride !== undefined) {
        notes.push(`configured tier "${tier.ignoredOverride}" ignored: the agent is not trusted`);
      }
      const name = mcpToolName({ server: agent.name, tool: skill.id, taken });
      taken.add(name);
      const description = describe(skill, agent.name);
      if (description.length > maxDescriptionChars) notes.push(`description cut to ${maxDescriptionChars} characters`);
      const text =
        description.length > maxDescriptionChars ? `${description.slice(0, maxDescriptionChars - 1)}…` : description;
      const fingerprint = a2aSkillFingerprint({
        name,
        description: text,
        parameters: a2aSkillParameters,
        agentCard: agent.agentCard,
        endpoint: this.endpoint,
        skill,
        sideEffect: tier.sideEffect,
      });
      const definition = this.#definition({
        name,
        skill: skill.id,
        description: text,
        sideEffect: tier.sideEffect,
        timeoutMs: override?.timeoutMs ?? agent.timeoutMs ?? defaultTimeoutMs,
        fingerprint,
      });
      mounted.push({
        name,
        agent: agent.name,
        skillId: skill.id,
        sideEffect: tier.sideEffect,
        definition,
        fingerprint,
        notes,
      });
    }
    return mounted;
  }

  #definition({
    name,
    skill,
    description,
    sideEffect,
    timeoutMs,
    fingerprint,
  }: {
    name: string;
    skill: string;
    description: string;
    sideEffect: SideEffect;
    timeoutMs: number;
    fingerprint: string;
  }): ToolDefinition {
    const agent = this.agent;
    const trusted = agent.trusted === true;
    const keyOf = (args: Record<string, unknown>) => `a2a:${agent.name}:${skill}:${sha256Hex(canonicalJson(args))}`;
    return {
      name,
      description,
      parameters: a2aSkillParameters,
      sideEffect,
      fingerprint,
      timeoutMs,
      enforcesTimeout: true,
      // A read changed nothing: a timed-out one may be asked again.
      retrySafe: sideEffect === 'read',
      // Another party's content: after it, egress calls wait for a person (unless the agent is trusted).
      ...(trusted ? {} : { untrustedOutput: `A2A agent ${agent.name}` }),
      ...(sideEffect === 'read'
        ? {}
        : {
            idempotencyKey: keyOf,
            // An interrupted call: the agent is asked what became of it, since an agent that does not deduplicate
            // message ids (the SDK's default handler starts a task per message) would act twice on a resend.
            reconcile: (_args: Record<string, unknown>, key: string, context: ToolContext) => {
              const messageId = a2aMessageId({ key, principal: context.principal });
              return reconcileA2aCall({
                client: this.#client,
                agent: agent.name,
                messageId,
                contextId: a2aContextId({ key, principal: context.principal }),
                startedTask: this.#startedTasks.get(messageId),
                deduplicates: agent.deduplicatesMessageIds === true,
                trusted,
                locale: context.locale,
                signal: AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]),
              });
            },
          }),
      execute: async (args: Record<string, unknown>, context: ToolContext): Promise<A2aAnswer> => {
        const key = sideEffect === 'read' ? undefined : keyOf(args);
        const messageId = key === undefined ? randomUUID() : a2aMessageId({ key, principal: context.principal });
        const contextId = key === undefined ? '' : a2aContextId({ key, principal: context.principal });
        const deadline = AbortSignal.timeout(timeoutMs);
        const signal = AbortSignal.any([context.signal, deadline]);
        try {
          const view = await callA2aSkill({
            client: this.#client,
            agent: agent.name,
            skill,
            text: String(args['message']),
            messageId,
            contextId,
            ...(key === undefined ? {} : { onTask: (taskId: string) => this.#remember(messageId, taskId) }),
            context,
            signal,
          });
          return a2aTaskOutcome({ view, agent: agent.name, trusted, locale: context.locale });
        } catch (error) {
          if (deadline.aborted && !context.signal.aborted)
            throw new ToolTimeoutError({ toolName: name, timeoutMs, cause: error });
          throw error;
        }
      },
    };
  }
}

function describe(skill: AgentSkill, agent: string): string {
  const given = skill.description.trim() !== '' ? skill.description.trim() : skill.name.trim();
  const what = given !== '' ? given : `The "${skill.id}" skill.`;
  return `${what} (Asks the agent "${agent}" over A2A: send the whole request in "message".)`;
}
