import { createHash } from 'node:crypto';
import { searchTerms } from '../util/search-terms.js';

/**
 * The search term that stands for one owner (tenant and user) in a
 * full-text index, so a search reads that owner's postings only. A hash:
 * the ids themselves may hold any character.
 *
 * @example
 * const scope = memoryScopeTerm({ tenantId: 'shop', userId: 'C1001' }); // 's3f1c…'
 */
export function memoryScopeTerm({ tenantId, userId }: { tenantId: string; userId: string }): string {
  return `s${createHash('sha256').update(`${tenantId}\u0000${userId}`).digest('hex').slice(0, 32)}`;
}

/**
 * The indexed terms of a fact: its key's and its value's, space-separated.
 *
 * @example
 * factSearchText({ key: 'home_city', value: '上海' }); // 'home city 上 海 上海'
 */
export function factSearchText({ key, value }: { key: string; value: string }): string {
  return searchTerms(`${key} ${value}`).join(' ');
}
