/**
 * Counts of what a node did, by a `work` label, and their Prometheus counter
 * lines: the one mechanism behind `arbiter_postgres_transactions_total`
 * (`TransactionCounts`) and `arbiter_cluster_work_total` (`ClusterWorkCounts`).
 * Counted, never timed.
 *
 * @example
 * const counts = new WorkCounts<'claim pass'>({ name: 'arbiter_example_total', help: 'Example work.' });
 * counts.add('claim pass');
 * counts.prometheus(); // ['# HELP arbiter_example_total Example work.', '# TYPE …', 'arbiter_example_total{work="claim pass"} 1']
 */
export class WorkCounts<Work extends string> {
  readonly #name: string;
  readonly #help: string;
  readonly #counts = new Map<Work, number>();

  constructor({ name, help }: { name: string; help: string }) {
    this.#name = name;
    this.#help = help;
  }

  /** Counts `times` more of `work` (one by default). */
  add(work: Work, times = 1): void {
    this.#counts.set(work, (this.#counts.get(work) ?? 0) + times);
  }

  /** Every kind of work so far, with its count. */
  entries(): [work: Work, count: number][] {
    return [...this.#counts.entries()];
  }

  /** The counts as Prometheus counter lines, with their HELP and TYPE; none before the first count. */
  prometheus(): string[] {
    if (this.#counts.size === 0) return [];
    return [
      `# HELP ${this.#name} ${this.#help}`,
      `# TYPE ${this.#name} counter`,
      ...this.entries()
        .sort(([left], [right]) => left.localeCompare(right))
        .map(([work, count]) => `${this.#name}{work="${work}"} ${count}`),
    ];
  }
}
