// Glob matching for URI_ALLOW_LIST entries, in time linear in the subject for a given pattern.
//
// A glob used to become a RegExp (`*` → `[^./]*`). With several `*` in one part
// (`https://*-*-*-*.example.com`) V8's backtracking engine tries every way to split a long run of `-`
// between the stars before failing at the suffix: seconds of event-loop time for ~500 characters, on
// an unauthenticated request (GET /verify?redirect_to=…). Here the pattern is run as an NFA over the
// set of pattern positions instead (Thompson's simulation): each subject character advances every live
// position once, so the cost is O(subject × pattern) whatever the input, with no backtracking at all.

/** One pattern element: a literal character, `?` (one non-separator), `*` (a run of non-separators), `**` (anything). */
type Token = { kind: 'literal'; ch: string } | { kind: 'one' } | { kind: 'star' } | { kind: 'any' };

export type GlobMatcher = (subject: string) => boolean;

function tokenize(glob: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        tokens.push({ kind: 'any' });
        i++;
      } else tokens.push({ kind: 'star' });
    } else if (ch === '?') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'literal', ch });
  }
  return tokens;
}

/**
 * Compiles a glob: `*` and `?` stay within one host label / path segment, `**` crosses them, every
 * other character is literal and the whole subject must match (the semantics the RegExp version had).
 * `separators` are the characters a single `*` or `?` cannot cross (GoTrue's gobwas/glob uses `.` and `/`).
 */
export function compileGlob(glob: string, separators = './'): GlobMatcher {
  const tokens = tokenize(glob);
  const m = tokens.length;
  const isSeparator = (ch: string) => separators.includes(ch);
  // State i = "the first i tokens are matched". A star (either kind) may match nothing, so being at
  // its position also means being just past it: `close` adds those epsilon moves, left to right.
  const close = (states: Uint8Array) => {
    for (let i = 0; i < m; i++) {
      const kind = (tokens[i] as Token).kind;
      if (states[i] && (kind === 'star' || kind === 'any')) states[i + 1] = 1;
    }
  };
  return (subject: string) => {
    let current = new Uint8Array(m + 1);
    let next = new Uint8Array(m + 1);
    current[0] = 1;
    close(current);
    for (let p = 0; p < subject.length; p++) {
      const ch = subject[p] as string;
      const separator = isSeparator(ch);
      next.fill(0);
      let alive = false;
      for (let i = 0; i < m; i++) {
        if (!current[i]) continue;
        const token = tokens[i] as Token;
        // Where this character takes position i: i + 1 (consumed the token), i (still inside a star), or nowhere.
        let to = -1;
        if (token.kind === 'literal') to = token.ch === ch ? i + 1 : -1;
        else if (token.kind === 'one') to = separator ? -1 : i + 1;
        else if (token.kind === 'star') to = separator ? -1 : i;
        else to = i;
        if (to >= 0) {
          next[to] = 1;
          alive = true;
        }
      }
      if (!alive) return false;
      close(next);
      [current, next] = [next, current];
    }
    return current[m] === 1;
  };
}
