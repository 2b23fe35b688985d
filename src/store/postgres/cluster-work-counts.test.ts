import { describe, expect, it } from 'vitest';
import { ClusterWorkCounts } from './cluster-work-counts.js';

describe('ClusterWorkCounts', () => {
  it('writes nothing before anything is counted', () => {
    expect(new ClusterWorkCounts().prometheus()).toEqual([]);
  });

  it('counts each kind of work and writes them as one Prometheus counter, sorted by kind', () => {
    const counts = new ClusterWorkCounts();
    counts.add('notification run_events not followed');
    counts.add('claim pass', 3);
    counts.add('notification run_events not followed');
    expect(counts.entries()).toEqual([
      ['notification run_events not followed', 2],
      ['claim pass', 3],
    ]);
    expect(counts.prometheus().slice(2)).toMatchInlineSnapshot(`
      [
        "arbiter_cluster_work_total{work="claim pass"} 3",
        "arbiter_cluster_work_total{work="notification run_events not followed"} 2",
      ]
    `);
  });
});
