import { createHash } from 'node:crypto';
import { searchTerms } from '../util/search-terms.js';

/**
 * The prefix that makes a search term one owner's (tenant and user): a
 * hash, as the ids may hold any character. Every indexed term and every
 * query term carries it, so a full-text index holds one posting list per
 * owner and term: a search reads that owner's postings only (fast however
 * many other owners there are), and no query can match another owner's
 * fact, whatever its words. The SQL of each backend filters by tenant and
 * user as well.
 *
 * @example
 * memoryScopeTerm({ tenantId: 'shop', userId: 'C1001' }); // 's3f1c…' (17 characters)
 */
export function memoryScopeTerm({ tenantId, userId }: { tenantId: string; userId: string }): string {
  return `s${createHash('sha256').update(`${tenantId}\u0000${userId}`).digest('hex').slice(0, 16)}`;
}

/**
 * The owner's search terms of a text: `searchTerms`, each prefixed with
 * the owner's scope term. With `query`, as a query splits them.
 *
 * @example
 * scopedSearchTerms({ tenantId: 'shop', userId: 'C1001' }, 'green tea', { query: true }); // ['s3f1c…green', 's3f1c…tea']
 */
export function scopedSearchTerms(
  owner: { tenantId: string; userId: string },
  text: string,
  { query = false }: { query?: boolean } = {},
): string[] {
  const scope = memoryScopeTerm(owner);
  return searchTerms(text, { query }).map((term) => `${scope}${term}`);
}

/**
 * The indexed terms of a fact: its owner's terms of its key and its value, space-separated.
 *
 * @example
 * factSearchText({ tenantId: 'shop', userId: 'C1001', key: 'home_city', value: '上海' }); // 's3f1c…home s3f1c…city s3f1c…上 …'
 */
export function factSearchText(fact: { tenantId: string; userId: string; key: string; value: string }): string {
  return scopedSearchTerms(fact, `${fact.key} ${fact.value}`).join(' ');
}
