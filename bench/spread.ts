/** How a figure varied over rounds: smallest, median (the lower middle of an even count) and largest. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) return { min: 0, median: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  return {
    min: sorted[0] ?? 0,
    median: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0,
    max: sorted.at(-1) ?? 0,
  };
}

/** `median (min–max)`, or the one value when every round measured the same. */
export function formatSpread(spread: Spread, digits = 0): string {
  const f = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return spread.min === spread.max ? f(spread.median) : `${f(spread.median)} (${f(spread.min)}–${f(spread.max)})`;
}
