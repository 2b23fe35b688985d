import { FatalToolError } from '../errors/fatal-tool-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import type { OpenAiFunctionTool } from '../tools/from-openai-tool.js';
import { fromOpenAiTool } from '../tools/from-openai-tool.js';
import type { SideEffect, ToolDefinition } from '../tools/tool-types.js';

/**
 * A tool an evaluation suite defines as data, next to its cases: an OpenAI
 * function definition (what the model sees and arbiter enforces) and a
 * canned behaviour. Strings in `returns` may quote an argument as
 * `{{arguments.field}}`.
 */
export interface FixtureToolSpec extends OpenAiFunctionTool {
  readonly sideEffect?: SideEffect;
  readonly groups?: readonly string[];
  /** What the tool returns. */
  readonly returns?: unknown;
  /** Sends data outside (`ToolDefinition.egress`). */
  readonly egress?: boolean;
  /** Its results carry third-party content (`ToolDefinition.untrustedOutput`). */
  readonly untrustedOutput?: boolean | string;
  /** Instead of returning, the tool fails with this error. */
  readonly fails?: { readonly code: string; readonly retryable: boolean; readonly message: string };
}

/**
 * Turns fixture specs into tool definitions.
 *
 * @example
 * for (const tool of createFixtureTools(JSON.parse(readFileSync('evals/shop/tools.json', 'utf8')))) registry.register(tool);
 */
export function createFixtureTools(specs: readonly FixtureToolSpec[]): ToolDefinition[] {
  return specs.map((spec) => ({
    ...fromOpenAiTool(spec, {
      sideEffect: spec.sideEffect ?? 'read',
      execute: (args) => {
        if (spec.fails !== undefined) {
          const { code, message } = spec.fails;
          throw spec.fails.retryable
            ? new RetryableToolError({ code, message })
            : new FatalToolError({ code, message });
        }
        return quoteArguments(spec.returns ?? null, args);
      },
    }),
    ...(spec.groups === undefined ? {} : { groups: spec.groups }),
    ...(spec.egress === undefined ? {} : { egress: spec.egress }),
    ...(spec.untrustedOutput === undefined ? {} : { untrustedOutput: spec.untrustedOutput }),
  }));
}

function quoteArguments(value: unknown, args: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\{\{\s*arguments\.([\w-]+)\s*\}\}/g, (whole, field: string) =>
      field in args ? String(args[field]) : whole,
    );
  }
  if (Array.isArray(value)) return value.map((item) => quoteArguments(item, args));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, quoteArguments(item, args)]));
  }
  return value;
}
