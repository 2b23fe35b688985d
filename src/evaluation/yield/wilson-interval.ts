/**
 * The 95% Wilson score interval of a proportion: `successes` out of `total`,
 * as fractions. Better than the normal approximation at small counts and at
 * 0% or 100%; `[0, 1]` for no trials.
 *
 * @example
 * wilsonInterval({ successes: 8, total: 10 }); // { low: 0.49, high: 0.94 } (rounded)
 */
export function wilsonInterval({
  successes,
  total,
  z = 1.959963984540054,
}: {
  successes: number;
  total: number;
  z?: number;
}): { low: number; high: number } {
  if (total === 0) return { low: 0, high: 1 };
  const share = successes / total;
  const z2 = z * z;
  const centre = (share + z2 / (2 * total)) / (1 + z2 / total);
  const half = (z * Math.sqrt((share * (1 - share)) / total + z2 / (4 * total * total))) / (1 + z2 / total);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
