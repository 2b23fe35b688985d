import type { Locale } from '../core/locale.js';
import { editDistance } from '../util/edit-distance.js';
import { issueLine } from './issue-parts.js';
import { displayName } from './json-path.js';
import type { ValidationIssue } from './validation-issue.js';
import { validationTexts } from './validation-texts.js';

/**
 * The issue for a call to a tool that is not mounted: it lists the tools
 * that are, and suggests the closest name when one is near.
 *
 * @example
 * unknownToolIssue({ name: 'refund_order', available: ['query_order', 'apply_refund'] }).message;
 * // '`refund_order`: there is no tool with this name. Available tools: query_order, apply_refund.'
 */
export function unknownToolIssue({
  name,
  available,
  locale = 'en',
}: {
  name: string;
  available: readonly string[];
  locale?: Locale;
}): ValidationIssue {
  const shown = displayName(name);
  const message = issueLine(validationTexts(locale), {
    field: shown,
    toolName: shown,
    problem: { kind: 'unknown_tool', available, suggestion: closestName(name, available) },
    wording: undefined,
    received: { kind: 'omit' },
  });
  return { path: '$', code: 'unknown_tool', layer: 'call', message };
}

/** The available name a typo most likely meant: small edit distance, or same words in another order. */
function closestName(name: string, available: readonly string[]): string | undefined {
  if (name.length > 64) return undefined;
  const lowered = name.toLowerCase();
  const words = lowered
    .split(/[_\-.]/)
    .sort()
    .join('_');
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of available) {
    const target = candidate.toLowerCase();
    if (
      target
        .split(/[_\-.]/)
        .sort()
        .join('_') === words
    )
      return candidate;
    const distance = editDistance(lowered, target);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  const tolerance = Math.max(2, Math.floor(lowered.length / 4));
  return bestDistance <= tolerance ? best : undefined;
}
