/**
 * The exact two-sided McNemar test (a sign test on the discordant pairs) for
 * two conditions answered on the same calls: `firstOnly` calls right only in
 * the first condition, `secondOnly` right only in the second. Calls right or
 * wrong in both say nothing about the difference and are not passed. The
 * p-value is the chance of a split at least this uneven if neither condition
 * were better; 1 for no discordant pair.
 *
 * @example
 * pairedSignTest({ firstOnly: 9, secondOnly: 1 }).p; // 0.0215 (rounded)
 */
export function pairedSignTest({ firstOnly, secondOnly }: { firstOnly: number; secondOnly: number }): { p: number } {
  const total = firstOnly + secondOnly;
  if (total === 0) return { p: 1 };
  const fewer = Math.min(firstOnly, secondOnly);
  // log C(total, k) summed in a stable way: p = 2 * sum_{k <= fewer} C(total, k) / 2^total.
  let logChoose = 0;
  let tail = 0;
  for (let k = 0; k <= fewer; k += 1) {
    if (k > 0) logChoose += Math.log(total - k + 1) - Math.log(k);
    tail += Math.exp(logChoose - total * Math.LN2);
  }
  return { p: Math.min(1, 2 * tail) };
}
