import { parseArgs } from 'node:util';
import { ArbiterError } from '../../errors/arbiter-error.js';
import { UsageError } from '../../errors/usage-error.js';
import { exportFacts, type FactExport } from '../../memory/export-facts.js';
import type { MemoryAdministration } from '../../store/backend.js';
import type { CommandResult } from '../cli-output.js';
import { memoryUsage } from '../command-usage.js';
import { noStoreMessage, withBackend } from './open-data-store.js';
import { storeLocation, storeOptions } from './store-location.js';

/**
 * `arbiter memory …`: what long-term memory holds about one person, and
 * their right to have it forgotten. Every subcommand but `purge` names
 * the user (and, when the user id exists in several tenants, the tenant):
 * nothing lists or deletes across people. Sensitive values are redacted
 * in `list`, `show` and `export` unless `--no-redact`. Exit 0 done, 1 no
 * such fact, 2 bad usage.
 *
 * @example
 * const result = await memoryCommand({ args: ['export', '--user', 'C1001', '--tenant', 'shop'] });
 */
export async function memoryCommand({
  args,
  now = Date.now,
  environment = process.env,
}: {
  args: readonly string[];
  now?: () => number;
  /** Where `ARBITER_STORE_URL` is read. Default `process.env`. */
  environment?: Readonly<Record<string, string | undefined>>;
}): Promise<CommandResult> {
  const [subcommand, ...rest] = args;
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: {
        ...storeOptions,
        user: { type: 'string' },
        tenant: { type: 'string' },
        key: { type: 'string' },
        fact: { type: 'string' },
        all: { type: 'boolean', default: false },
        history: { type: 'boolean', default: false },
        expired: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'no-redact': { type: 'boolean', default: false },
      },
    });
    const redactSensitive = !values['no-redact'];
    const location = storeLocation({ values, environment });
    const noStore = (): CommandResult => ({
      exitCode: 2,
      stdout: [],
      stderr: [`arbiter: ${noStoreMessage(location)}`],
    });
    if (subcommand === 'purge') {
      if (!values.expired) throw new UsageError({ message: 'memory purge needs --expired' });
      return await withBackend({
        location,
        now,
        work: async (backend) => {
          if (backend === undefined) return noStore();
          const purged = await backend.memory.purgeExpired();
          return done([`purged ${purged} expired facts`]);
        },
      });
    }
    if (!['list', 'show', 'forget', 'export'].includes(subcommand ?? '')) {
      throw new UsageError({
        message: subcommand === undefined ? 'memory needs a subcommand' : `unknown subcommand "${subcommand}"`,
      });
    }
    const userId = values.user;
    if (userId === undefined || userId === '')
      throw new UsageError({ message: `memory ${subcommand} needs --user ID` });
    if (subcommand === 'show' && positionals[0] === undefined)
      throw new UsageError({ message: 'memory show needs a FACT_ID' });
    if (subcommand === 'forget') {
      const chosen = [values.key !== undefined, values.fact !== undefined, values.all].filter(Boolean).length;
      if (chosen !== 1)
        throw new UsageError({ message: 'memory forget needs exactly one of --key KEY, --fact FACT_ID, --all' });
    }
    return await withBackend({
      location,
      now,
      work: async (backend) => {
        if (backend === undefined) return noStore();
        const memory = backend.memory;
        const tenantId = values.tenant ?? (await tenantOf(memory, userId));
        // Nobody remembered in any tenant: nothing to list, show, export or forget (not a usage error).
        if (tenantId === undefined) {
          if (subcommand === 'show') return noFact(positionals[0] ?? '');
          if (subcommand === 'forget' && values.fact !== undefined) return noFact(values.fact);
          if (subcommand === 'list' && !values.json) return done([`no facts remembered about ${userId}`]);
          if (subcommand === 'forget') return done([`forgot 0 fact versions of ${userId}`]);
          return done([]);
        }
        const owner = { tenantId, userId };
        switch (subcommand) {
          case 'list': {
            const facts = exportFacts({
              facts: await memory.list({ ...owner, history: values.history }),
              now: now(),
              redactSensitive,
            });
            if (values.json) return done(facts.map((fact) => JSON.stringify(fact)));
            if (facts.length === 0) return done([`no facts remembered about ${userId} in tenant ${tenantId}`]);
            return done(facts.map(line));
          }
          case 'show': {
            const factId = positionals[0] ?? '';
            const fact = await memory.get({ ...owner, factId });
            if (fact === undefined) return noFact(factId);
            const [shown] = exportFacts({ facts: [fact], now: now(), redactSensitive }) as [FactExport];
            return done(values.json ? [JSON.stringify(shown)] : describe(shown));
          }
          case 'export':
            return done(
              exportFacts({ facts: await memory.list({ ...owner, history: true }), now: now(), redactSensitive }).map(
                (fact) => JSON.stringify(fact),
              ),
            );
          default: {
            const forgotten = await memory.forget({
              ...owner,
              ...(values.key === undefined ? {} : { key: values.key }),
              ...(values.fact === undefined ? {} : { factId: values.fact }),
            });
            if (forgotten === 0 && values.fact !== undefined) return noFact(values.fact);
            return done([
              `forgot ${forgotten} fact ${forgotten === 1 ? 'version' : 'versions'} of ${userId} in tenant ${tenantId}`,
            ]);
          }
        }
      },
    });
  } catch (error) {
    if (UsageError.isInstance(error))
      return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`, memoryUsage] };
    if (
      ArbiterError.isInstance(error) ||
      (error instanceof Error && String(Reflect.get(error, 'code')).startsWith('ERR_PARSE_ARGS'))
    ) {
      return { exitCode: 2, stdout: [], stderr: [`arbiter: ${error.message}`] };
    }
    throw error;
  }
}

/** The one tenant the user has facts in, undefined when none; a usage error when several (then --tenant decides). */
async function tenantOf(memory: MemoryAdministration, userId: string): Promise<string | undefined> {
  const tenants = await memory.tenantsOfUser({ userId });
  if (tenants.length <= 1) return tenants[0];
  throw new UsageError({
    message: `user ${userId} has facts in ${tenants.length} tenants (${tenants.join(', ')}): say which with --tenant T`,
  });
}

function line(fact: FactExport): string {
  const trust = fact.trusted ? 'user' : `${fact.source.kind}, unverified`;
  return `${fact.factId}  ${fact.createdAt.slice(0, 10)}  ${fact.status.padEnd(10)}  ${fact.key} = ${fact.value}  (${trust})`;
}

function describe(fact: FactExport): string[] {
  return [
    `fact        ${fact.factId}`,
    `owner       ${fact.tenantId} / ${fact.userId}`,
    `key         ${fact.key}`,
    `value       ${fact.value}`,
    `status      ${fact.status}`,
    `source      ${fact.source.kind}${fact.source.tool === undefined ? '' : ` (${fact.source.tool})`}${fact.source.runId === undefined ? '' : `, run ${fact.source.runId}`}${fact.source.callId === undefined ? '' : `, call ${fact.source.callId}`}`,
    `trusted     ${fact.trusted}`,
    `saved       ${fact.createdAt}`,
    `expires     ${fact.expiresAt ?? 'never'}`,
    ...(fact.supersedes === undefined ? [] : [`replaced    ${fact.supersedes}`]),
    ...(fact.supersededBy === undefined ? [] : [`replaced by ${fact.supersededBy}`]),
  ];
}

function done(stdout: readonly string[]): CommandResult {
  return { exitCode: 0, stdout, stderr: [] };
}

function noFact(factId: string): CommandResult {
  return { exitCode: 1, stdout: [], stderr: [`arbiter: no such fact ${factId} for that user`] };
}
