/** The median of a set of figures (the mean of the middle two for an even count); NaN when empty. */
export function median(xs: readonly number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  if (v.length === 0) return Number.NaN;
  return v.length % 2 ? (v[m] as number) : ((v[m - 1] as number) + (v[m] as number)) / 2;
}
