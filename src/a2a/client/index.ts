export { type A2aAgentConfig, type A2aSkillOverride, parseA2aConfig, readA2aConfig } from './a2a-agent-config.js';
export { A2aAgentMount, a2aSkillParameters, type MountedA2aSkill } from './a2a-agent-mount.js';
export { A2aConnectionError } from './a2a-connection-error.js';
export { a2aMessageId } from './a2a-message-id.js';
export { a2aSkillFingerprint } from './a2a-skill-fingerprint.js';
export { type A2aAnswer, type A2aTaskView, a2aTaskOutcome, isStoppedTaskState } from './a2a-task-outcome.js';
export { type A2aTexts, a2aTexts } from './a2a-texts.js';
export { callA2aSkill } from './call-a2a-skill.js';
export { type A2aMounts, mountA2aAgents, openA2aMounts } from './mount-a2a-agents.js';
