export type { Principal } from './principal.js';
export { allowAllGate, type GateDecision, type ToolGate } from './tool-gate.js';
