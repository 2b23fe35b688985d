/**
 * @module
 * `@arbiter-runtime/core/a2a`: calling other agents over A2A, on the
 * official `@a2a-js/sdk` client. (Serving arbiter as an A2A agent is the
 * server's: `arbiter serve` publishes an Agent Card and `POST /v1/a2a`.)
 *
 * `mountA2aAgents` (or `A2aAgentMount` for one agent) reads an Agent Card
 * and puts one tool per skill, `<name>_<skill>` taking `{ "message": "…" }`,
 * into a `ToolRegistry`, behind arbiter's validation, gate (irreversible
 * unless configured), approvals, idempotency and audit; `readA2aConfig`
 * reads the agents of the config file `arbiter serve --mcp` takes (its
 * entries with an `agentCard`).
 *
 * @example
 * import { ToolRegistry, createTierGate, runAgent } from '@arbiter-runtime/core';
 * import { mountA2aAgents, readA2aConfig } from '@arbiter-runtime/core/a2a';
 * const registry = new ToolRegistry();
 * await mountA2aAgents({ agents: await readA2aConfig({ file: 'mcp.json' }), registry });
 * const result = await runAgent({ model, tools: registry, messages, gate: createTierGate({ tools: registry }) });
 */
export {
  type A2aAgentConfig,
  A2aAgentMount,
  type A2aAnswer,
  A2aConnectionError,
  type A2aEndpoint,
  type A2aMounts,
  type A2aSkillOverride,
  type A2aTexts,
  a2aContextId,
  a2aMessageId,
  a2aSkillFingerprint,
  a2aSkillParameters,
  a2aTaskOutcome,
  a2aTexts,
  type MountedA2aSkill,
  mountA2aAgents,
  openA2aMounts,
  parseA2aConfig,
  readA2aConfig,
} from './a2a/client/index.js';
