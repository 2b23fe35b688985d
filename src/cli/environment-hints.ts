/**
 * What arbiter says about the environment it is started in: an `ARBITER_*`
 * variable it does not read (a typo such as `ARBITER_STORE` would otherwise
 * leave the store on SQLite without a word), and another tool's database
 * variable (`DATABASE_URL`) named beside the one arbiter reads. (The model's
 * `OPENAI_*` variables are named where the model configuration is read.)
 *
 * @module
 */
import { editDistance } from '../util/edit-distance.js';

/** Every `ARBITER_*` variable arbiter or its documented clients read. */
export const arbiterVariables: readonly string[] = [
  'ARBITER_API',
  'ARBITER_API_KEY',
  'ARBITER_AUDIT_KEY',
  'ARBITER_AUDIT_RETENTION_DAYS',
  'ARBITER_BASE_URL',
  'ARBITER_DEBUG',
  'ARBITER_FALLBACK_MODEL',
  'ARBITER_MCP_ROLES',
  'ARBITER_MCP_TENANT',
  'ARBITER_MCP_USER',
  'ARBITER_METRICS_TOKEN',
  'ARBITER_MODEL',
  'ARBITER_POSTGRES_BINDIR',
  'ARBITER_PROVIDER',
  'ARBITER_SCRIPTED_LATENCY_MS',
  'ARBITER_STORE_URL',
  'ARBITER_TOKEN',
  'ARBITER_URL',
];

/**
 * One warning per `ARBITER_*` variable set in `env` that arbiter does not
 * read, naming the variable it most likely meant.
 *
 * @example
 * unknownVariableWarnings({ ARBITER_STORE: 'postgres://…' });
 * // ['ARBITER_STORE is not a variable arbiter reads (did you mean ARBITER_STORE_URL?); it is ignored']
 */
export function unknownVariableWarnings(env: Readonly<Record<string, string | undefined>>): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('ARBITER_') || arbiterVariables.includes(name) || env[name] === undefined) continue;
    const meant = closestVariable(name);
    const guess = meant === undefined ? '' : ` (did you mean ${meant}?)`;
    warnings.push(`${name} is not a variable arbiter reads${guess}; it is ignored`);
  }
  return warnings;
}

/**
 * A clause naming another tool's database variable that is set while
 * arbiter's own is not, for a message about a missing store: `''` when
 * there is none.
 *
 * @example
 * storeVariableHint(process.env);
 * // ' (DATABASE_URL is set, but arbiter reads ARBITER_STORE_URL or --store URL)'
 */
export function storeVariableHint(env: Readonly<Record<string, string | undefined>>): string {
  if (nonEmpty(env['ARBITER_STORE_URL'])) return '';
  const set = ['DATABASE_URL', 'POSTGRES_URL'].filter((name) => nonEmpty(env[name]));
  return set.length === 0
    ? ''
    : ` (${set.join(' and ')} ${set.length === 1 ? 'is' : 'are'} set, but arbiter reads ARBITER_STORE_URL or --store URL)`;
}

function closestVariable(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const known of arbiterVariables) {
    // A shared last word (`ARBITER_KEY`, `ARBITER_API_KEY`) counts for more than a few letters.
    const lastWord = name.slice(name.lastIndexOf('_'));
    const sharesLastWord = lastWord.length > 3 && known.endsWith(lastWord);
    const distance =
      known.startsWith(name) || name.startsWith(known) ? 0 : editDistance(name, known) - (sharesLastWord ? 2 : 0);
    if (best === undefined || distance < best.distance) best = { name: known, distance };
  }
  return best !== undefined && best.distance <= Math.max(3, Math.floor(name.length / 4)) ? best.name : undefined;
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}
