/**
 * @module
 * `@arbiter-runtime/core/testing`: what a test or an offline demo runs on
 * instead of a real model and real systems: the scripted model and its
 * script format, fixture tools built from JSON specs, the in-memory run
 * journal and audit log, and `startFakeEndpoint`: the scripted model behind
 * a local OpenAI-compatible Chat Completions endpoint (`arbiter fake-endpoint`).
 *
 * @example
 * import { ScriptedModel } from '@arbiter-runtime/core/testing';
 * const model = new ScriptedModel({ script: { name: 'time', turns: [{ steps: [{ say: 'It is noon.' }] }] } });
 */
export { createMemoryJournal } from './core/run-journal.js';
export { createFixtureTools, type FixtureToolSpec } from './evaluation/fixture-tools.js';
export { MemoryAuditLog } from './gate/memory-audit-log.js';
export type { Script, ScriptStep, ScriptTurn } from './models/script.js';
export { ScriptedModel } from './models/scripted-model.js';
export {
  type FakeEndpoint,
  type FakeEndpointExchange,
  startFakeEndpoint,
} from './models/start-fake-endpoint.js';
