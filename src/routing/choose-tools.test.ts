import { describe, expect, it } from 'vitest';
import { chooseTools, searchIndexFor } from './choose-tools.js';
import { deskTools } from './test-support/desk-tools.js';

describe('searchIndexFor', () => {
  it('finds the index again for the same tools mounted in a new array (groups mount one per step)', () => {
    const { registry } = deskTools();
    const first = registry.mount({ groups: ['lookup'] });
    const second = registry.mount({ groups: ['lookup'] });
    expect(second.specs).not.toBe(first.specs);
    expect(searchIndexFor(second.specs)).toBe(searchIndexFor(first.specs));
    expect(searchIndexFor(registry.mount({ groups: ['act'] }).specs)).not.toBe(searchIndexFor(first.specs));
    expect(searchIndexFor([...first.specs].reverse())).not.toBe(searchIndexFor(first.specs));
  });

  it('builds an empty index for no tools', () => {
    expect(searchIndexFor([]).search([{ text: 'refund', weight: 1 }])).toEqual([]);
  });
});

describe('chooseTools', () => {
  it('ranks a tool whose name says it above one whose description mentions it', () => {
    const { registry } = deskTools();
    const choice = chooseTools({ specs: registry.specs, query: [{ text: 'cancel order', weight: 1 }], topK: 3 });
    expect(choice.ranked[0]?.name).toBe('cancel_order');
    expect(choice.tools).toEqual(choice.all.filter((name) => choice.tools.includes(name)));
  });

  it('ignores weightless and negative query parts', () => {
    const { registry } = deskTools();
    const query = [
      { text: 'refund', weight: 0 },
      { text: 'invoice', weight: -1 },
    ];
    expect(chooseTools({ specs: registry.specs, query, topK: 3 }).reason).toBe('no_match');
  });
});
