/**
 * A string a regular expression matches, for the path model's samples of a pattern-checked field:
 * the subset of expressions a sample can be made for (literals, classes, groups, alternatives,
 * quantifiers); null beyond it (lookarounds, back references, Unicode properties).
 */
type RegexNode =
  | { kind: 'seq'; items: RegexNode[] }
  | { kind: 'alt'; options: RegexNode[] }
  | { kind: 'char'; char: string }
  | { kind: 'repeat'; node: RegexNode; min: number; max: number };

class RegexUnsupported extends Error {}

const classEscapes: Record<string, string> = { d: '0', w: 'a', s: ' ', D: 'a', W: '-', S: 'a' };
const negatedCandidates = ['a', 'A', '0', '_', '-', ' ', 'x', '.'];

/** Parses the subset of regular expressions a sample can be made for. */
function parseRegex(source: string): RegexNode {
  let at = 0;
  const peek = () => source[at];
  const next = () => source[at++] ?? '';

  function escape(inClass: boolean): string {
    const c = next();
    if (c in classEscapes) return classEscapes[c] as string;
    if (c === 'n') return '\n';
    if (c === 't') return '\t';
    if (/[1-9]/.test(c) || c === 'k' || c === 'p' || c === 'P' || c === 'u' || c === 'x' || c === 'c') {
      throw new RegexUnsupported(`\\${c}`);
    }
    if (!inClass && (c === 'b' || c === 'B')) throw new RegexUnsupported(`\\${c}`);
    return c;
  }

  /** A character class: its members are listed, ranges by their ends; the first member is the sample. */
  function charClass(): string {
    const negated = peek() === '^';
    if (negated) at++;
    const members: [string, string][] = [];
    let first = true;
    while (at < source.length && (peek() !== ']' || first)) {
      first = false;
      let c = next();
      if (c === '\\') c = escape(true);
      if (peek() === '-' && source[at + 1] !== ']' && at + 1 < source.length) {
        at++;
        let end = next();
        if (end === '\\') end = escape(true);
        members.push([c, end]);
      } else members.push([c, c]);
    }
    if (next() !== ']') throw new RegexUnsupported('an unclosed class');
    const inClass = (ch: string) => members.some(([lo, hi]) => ch >= lo && ch <= hi);
    if (!negated) return members[0]?.[0] ?? '';
    const pick = negatedCandidates.find((ch) => !inClass(ch));
    if (pick === undefined) throw new RegexUnsupported('a negated class');
    return pick;
  }

  function atom(): RegexNode {
    const c = next();
    if (c === '(') {
      if (peek() === '?') {
        at++;
        const kind = next();
        if (kind === '<' && peek() !== '=' && peek() !== '!') {
          while (at < source.length && next() !== '>');
        } else if (kind !== ':') throw new RegexUnsupported(`(?${kind}`);
      }
      const inner = alternatives();
      if (next() !== ')') throw new RegexUnsupported('an unclosed group');
      return inner;
    }
    if (c === '[') return { kind: 'char', char: charClass() };
    if (c === '\\') return { kind: 'char', char: escape(false) };
    if (c === '.') return { kind: 'char', char: 'a' };
    return { kind: 'char', char: c };
  }

  function quantified(node: RegexNode): RegexNode {
    const q = peek();
    let min: number;
    let max: number;
    if (q === '*') [min, max] = [0, Number.POSITIVE_INFINITY];
    else if (q === '+') [min, max] = [1, Number.POSITIVE_INFINITY];
    else if (q === '?') [min, max] = [0, 1];
    else if (q === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
      if (!match) return node;
      at += match[0].length - 1;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] ? Number(match[3]) : Number.POSITIVE_INFINITY;
    } else return node;
    at++;
    if (peek() === '?') at++;
    return { kind: 'repeat', node, min, max };
  }

  function sequence(): RegexNode {
    const items: RegexNode[] = [];
    while (at < source.length && peek() !== '|' && peek() !== ')') {
      if (peek() === '^' || peek() === '$') {
        at++;
        continue;
      }
      items.push(quantified(atom()));
    }
    return { kind: 'seq', items };
  }

  function alternatives(): RegexNode {
    const options = [sequence()];
    while (peek() === '|') {
      at++;
      options.push(sequence());
    }
    return options.length === 1 ? (options[0] as RegexNode) : { kind: 'alt', options };
  }

  const tree = alternatives();
  if (at < source.length) throw new RegexUnsupported(`an unexpected ${source[at] ?? ''}`);
  return tree;
}

/** A string made from the tree, each open repetition taken `extra` more times than its least. */
function generate(node: RegexNode, extra: number): string {
  switch (node.kind) {
    case 'char':
      return node.char;
    case 'seq':
      return node.items.map((n) => generate(n, extra)).join('');
    case 'alt':
      return generate(node.options[0] as RegexNode, extra);
    case 'repeat': {
      const times = Math.min(node.max, node.min + (node.max > node.min ? extra : 0));
      return generate(node.node, extra).repeat(times);
    }
  }
}

/**
 * A string the regular expression matches, between `minLength` and `maxLength`; null when the
 * expression is beyond the sampler (lookarounds, back references, Unicode properties) or no length fits.
 */
export function sampleRegex(regex: RegExp, bounds: { minLength?: number; maxLength?: number } = {}): string | null {
  let tree: RegexNode;
  try {
    tree = parseRegex(regex.source);
  } catch (error) {
    if (error instanceof RegexUnsupported) return null;
    throw error;
  }
  const min = bounds.minLength ?? 0;
  const max = bounds.maxLength ?? Number.POSITIVE_INFINITY;
  const test = new RegExp(regex.source, regex.flags.replace(/[gy]/g, ''));
  for (let extra = 0; extra <= Math.max(min, 8); extra++) {
    const sample = generate(tree, extra);
    if (sample.length > max) return null;
    if (sample.length >= min && test.test(sample)) return sample;
  }
  return null;
}
