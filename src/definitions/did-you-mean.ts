/**
 * "Did you mean …?" for a name a chart or a declaration gives that is none of the declared ones: the
 * closest by edit distance (case differences cost nothing extra than one edit each), when it is
 * close enough to be a typo (at most a third of the name's letters, and at least 2).
 */

/** The Levenshtein distance of two strings. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The declared name closest to `name`, or null when none is close enough to be a typo of it. */
export function closestName(name: string, candidates: Iterable<string>): string | null {
  const most = Math.max(2, Math.floor(name.length / 3));
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = Math.min(editDistance(name, candidate), editDistance(name.toLowerCase(), candidate.toLowerCase()));
    if (distance <= most && (best === null || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate ?? null;
}

/** ` (did you mean X?)`, or nothing. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const closest = closestName(name, candidates);
  return closest === null ? '' : ` (did you mean ${closest}?)`;
}
