import { ToolRegistry, type ToolSet } from '../tools/tool-registry.js';
import type { RunAgentOptions } from './run-agent.js';

/**
 * The tools the model gets at a step: the registry's `groups` for that step
 * (fixed, or chosen per step), or the registry or set as given.
 *
 * @example
 * const tools = mountTools(options, progress.steps);
 */
export function mountTools(options: Pick<RunAgentOptions, 'tools' | 'groups'>, step: number): ToolSet {
  const { tools, groups } = options;
  if (groups === undefined || !(tools instanceof ToolRegistry)) return tools;
  return tools.mount({ groups: typeof groups === 'function' ? groups({ step }) : groups });
}
