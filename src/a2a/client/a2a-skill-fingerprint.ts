import type { AgentSkill } from '@a2a-js/sdk';
import type { SideEffect } from '../../tools/tool-types.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { sha256Hex } from '../../util/sha256.js';
import type { A2aEndpoint } from './choose-a2a-endpoint.js';

/**
 * The fingerprint of a mounted A2A skill: sha256 of the canonical JSON of
 * what the model and the gate see of it (its arbiter name, description and
 * parameters as mounted), where its calls go (the Agent Card's URL and the
 * endpoint chosen from the card: URL, binding, protocol version, tenant),
 * the skill as the card lists it, and the tier decided. Two mounts of the
 * same card give the same fingerprint; a changed skill, card URL, endpoint
 * or tier gives another, so an approval asked or granted for the old one
 * does not cover it.
 *
 * @example
 * a2aSkillFingerprint({ name: 'billing_apply_refund', description: 'Refunds.', parameters, agentCard: 'https://…', endpoint, skill, sideEffect: 'irreversible' });
 */
export function a2aSkillFingerprint({
  name,
  description,
  parameters,
  agentCard,
  endpoint,
  skill,
  sideEffect,
}: {
  name: string;
  description: string;
  parameters: unknown;
  agentCard: string;
  endpoint: A2aEndpoint;
  skill: AgentSkill;
  sideEffect: SideEffect;
}): string {
  return sha256Hex(
    canonicalJson({
      name,
      description,
      parameters,
      agentCard,
      endpoint: {
        url: endpoint.url,
        protocolBinding: endpoint.protocolBinding,
        protocolVersion: endpoint.protocolVersion,
        tenant: endpoint.tenant,
      },
      skill: {
        id: skill.id,
        name: skill.name,
        description: skill.description,
        tags: skill.tags,
        inputModes: skill.inputModes,
        outputModes: skill.outputModes,
      },
      tier: sideEffect,
    }),
  );
}
