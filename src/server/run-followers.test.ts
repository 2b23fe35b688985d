import { describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { RunFollowers } from './run-followers.js';

const event = (runId: string, seq: number) =>
  ({ type: 'text', text: `${seq}`, runId, seq, at: 0 }) as unknown as ExternalEvent;

describe('RunFollowers', () => {
  it("hands each event, in order, to the followers of its run and no other run's", () => {
    const followers = new RunFollowers();
    const seen: string[] = [];
    followers.follow('run-1', (received) => seen.push(`a ${received.runId}#${received.seq}`));
    followers.follow('run-1', (received) => seen.push(`b ${received.runId}#${received.seq}`));
    followers.follow('run-2', (received) => seen.push(`c ${received.runId}#${received.seq}`));
    followers.deliver([event('run-1', 1), event('run-2', 1), event('run-1', 2), event('run-3', 1)]);
    expect(seen).toEqual(['a run-1#1', 'b run-1#1', 'c run-2#1', 'a run-1#2', 'b run-1#2']);
  });

  it('stops delivering after the unfollow, and keeps no entry for a run nobody follows', () => {
    const followers = new RunFollowers();
    const seen: number[] = [];
    const unfollow = followers.follow('run-1', (received) => seen.push(received.seq));
    const other = followers.follow('run-1', () => {});
    followers.deliver([event('run-1', 1)]);
    unfollow();
    followers.deliver([event('run-1', 2)]);
    expect(seen).toEqual([1]);
    expect(followers.runCount).toBe(1);
    other();
    unfollow();
    expect(followers.runCount).toBe(0);
  });
});
