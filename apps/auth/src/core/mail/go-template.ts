// The subset of Go's text/template syntax that Supabase mail templates use, so an operator's
// GoTrue template (MAILER_TEMPLATES_*) works here unchanged:
//
//   {{ .Field }}  {{ .Data.key }}            fields; `.Data` is a map, the others are strings
//   {{ if P }} … {{ else if P }} … {{ else }} … {{ end }}
//   eq / ne / and / or / not                 functions inside a pipeline, with "strings" and numbers
//   {{- … -}}  {{/* comment */}}             trim markers and comments
//
// No npm package implements this subset strictly (the one that exists has no `eq`, no escaping and
// turns an unknown pipe into an empty string), so this is a small parser. It is strict on purpose:
// a template is parsed once at start-up, and anything it cannot run exactly as Go would
// (`range`, `with`, pipes `|`, `printf`, an unknown field) is refused there, with a position, rather
// than rendered wrongly in a user's mailbox.

export class TemplateError extends Error {
  override name = 'TemplateError';
}

type Expr =
  | { kind: 'field'; path: string[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'call'; fn: FnName; args: Expr[] };
type FnName = 'eq' | 'ne' | 'and' | 'or' | 'not';
type Node =
  | { kind: 'text'; text: string }
  | { kind: 'output'; expr: Expr }
  | { kind: 'if'; branches: { cond: Expr; body: Node[] }[]; otherwise: Node[] };

const FUNCTIONS = new Set<string>(['eq', 'ne', 'and', 'or', 'not']);

export type TemplateValues = Record<string, unknown>;

export type CompiledTemplate = {
  /** Runs the template; every value printed goes through `escape` (HTML escaping, or none for text). */
  execute(values: TemplateValues, escapeValue: (s: string) => string): string;
};

/** Go's html/template escaping of printed values (its htmlEscaper: `+` and quotes as numeric references). */
export function escapeHtmlLikeGo(s: string): string {
  return s.replace(/[\0"'&+<>]/g, (ch) => {
    switch (ch) {
      case '\0':
        return '\uFFFD';
      case '"':
        return '&#34;';
      case "'":
        return '&#39;';
      case '&':
        return '&amp;';
      case '+':
        return '&#43;';
      case '<':
        return '&lt;';
      default:
        return '&gt;';
    }
  });
}

type Token = { text: string; at: number };

/** 1-based line:column of an offset, for error messages an operator can act on. */
function position(src: string, at: number): string {
  const before = src.slice(0, at);
  const line = before.split('\n').length;
  return `line ${line}, column ${at - before.lastIndexOf('\n')}`;
}

/** Splits the source into text and action tokens, applying the `{{-` / `-}}` trim markers. */
type Lexed = { kind: 'text'; text: string } | { kind: 'action'; body: string; at: number; bodyAt: number };
function lex(src: string): Lexed[] {
  const out: Lexed[] = [];
  let i = 0;
  let trimNextText = false;
  while (i <= src.length) {
    const open = src.indexOf('{{', i);
    let text = src.slice(i, open === -1 ? src.length : open);
    if (trimNextText) text = text.replace(/^\s+/, '');
    trimNextText = false;
    if (open === -1) {
      if (text) out.push({ kind: 'text', text });
      break;
    }
    let bodyStart = open + 2;
    // `{{- ` trims the whitespace before the action (Go requires the space after the dash).
    if (src[bodyStart] === '-' && /\s/.test(src[bodyStart + 1] ?? '')) {
      text = text.replace(/\s+$/, '');
      bodyStart += 1;
    }
    if (text) out.push({ kind: 'text', text });
    // A comment may contain `}}`, so it ends at `*/}}` (or `*/ -}}`).
    const isComment = /^\s*\/\*/.test(src.slice(bodyStart));
    const close = isComment
      ? (() => {
          const m = /\*\/\s*(-\s*)?\}\}/.exec(src.slice(bodyStart));
          return m ? bodyStart + m.index + m[0].length - 2 : -1;
        })()
      : src.indexOf('}}', bodyStart);
    if (close === -1) throw new TemplateError(`unclosed action "{{" at ${position(src, open)}`);
    let bodyEnd = close;
    if (src[close - 1] === '-' && /\s/.test(src[close - 2] ?? '')) {
      bodyEnd = close - 1;
      trimNextText = true;
    }
    const body = src.slice(bodyStart, bodyEnd);
    if (!isComment) out.push({ kind: 'action', body, at: open, bodyAt: bodyStart });
    i = close + 2;
  }
  return out;
}

/** Words of an action: field paths, "strings" (with Go's escapes), `raw strings`, numbers, parens. */
function words(body: string, at: number, src: string): Token[] {
  const out: Token[] = [];
  const re = /\s+|"(?:[^"\\\n]|\\.)*"|`[^`]*`|[()]|[^\s()"`]+/gy;
  let m: RegExpExecArray | null = re.exec(body);
  while (m !== null) {
    if (!/^\s+$/.test(m[0])) out.push({ text: m[0], at: at + m.index });
    if (re.lastIndex >= body.length) break;
    m = re.exec(body);
  }
  if (re.lastIndex < body.length && body.slice(re.lastIndex).trim())
    throw new TemplateError(`cannot read "${body.trim()}" at ${position(src, at)}`);
  return out;
}

function parseExpr(
  tokens: Token[],
  src: string,
  fields: ReadonlySet<string>,
  mapFields: ReadonlySet<string>,
): Expr {
  let i = 0;
  const fail = (msg: string, t?: Token): never => {
    throw new TemplateError(`${msg} at ${position(src, (t ?? tokens[0])?.at ?? 0)}`);
  };
  function operand(): Expr {
    const t = tokens[i];
    if (!t) return fail('missing value');
    i++;
    if (t.text === '(') {
      const inner = command(')');
      if (tokens[i]?.text !== ')') fail('missing ")"', t);
      i++;
      return inner;
    }
    if (t.text.startsWith('"')) {
      try {
        return { kind: 'string', value: JSON.parse(t.text) as string };
      } catch {
        return fail(`bad string ${t.text}`, t);
      }
    }
    if (t.text.startsWith('`')) return { kind: 'string', value: t.text.slice(1, -1) };
    if (/^-?\d+(\.\d+)?$/.test(t.text)) return { kind: 'number', value: Number(t.text) };
    if (t.text === 'true' || t.text === 'false') return { kind: 'bool', value: t.text === 'true' };
    if (t.text.startsWith('.')) {
      const path = t.text.slice(1).split('.');
      const [root, ...rest] = path;
      if (!root || path.some((p) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p)))
        return fail(`unsupported field "${t.text}"`, t);
      if (!fields.has(root)) return fail(`unknown variable "${t.text}"`, t);
      // Only a map (.Data) has keys; `.Email.x` cannot be evaluated in Go either.
      if (rest.length > 0 && !mapFields.has(root)) return fail(`"${t.text}": .${root} has no fields`, t);
      return { kind: 'field', path };
    }
    if (FUNCTIONS.has(t.text)) return fail(`function "${t.text}" needs parentheses here`, t);
    if (t.text === '|') return fail('pipes ("|") are not supported', t);
    return fail(`unsupported "${t.text}" (variables, printf and other functions are not supported)`, t);
  }
  /** A function call `fn a b`, or a single operand, up to `stop`. */
  function command(stop?: string): Expr {
    const t = tokens[i];
    if (t && FUNCTIONS.has(t.text)) {
      i++;
      const args: Expr[] = [];
      while (i < tokens.length && tokens[i]?.text !== stop) args.push(operand());
      const fn = t.text as FnName;
      const arity = fn === 'not' ? [1, 1] : fn === 'eq' ? [2, 99] : fn === 'ne' ? [2, 2] : [1, 99];
      if (args.length < (arity[0] as number) || args.length > (arity[1] as number))
        fail(`wrong number of arguments for ${fn}`, t);
      return { kind: 'call', fn, args };
    }
    const single = operand();
    if (i < tokens.length && tokens[i]?.text !== stop) {
      const extra = tokens[i] as Token;
      fail(extra.text === '|' ? 'pipes ("|") are not supported' : `unexpected "${extra.text}"`, extra);
    }
    return single;
  }
  if (tokens.length === 0) fail('empty action');
  const expr = command();
  if (i < tokens.length) fail(`unexpected "${tokens[i]?.text}"`, tokens[i]);
  return expr;
}

/**
 * Parses a template once. `fields` are the variables it may use (`.Name`); `mapFields` those that
 * are maps whose keys may follow (`.Data.locale`). Throws TemplateError naming the problem and its
 * line and column.
 */
export function compileTemplate(
  src: string,
  opts: { fields: readonly string[]; mapFields?: readonly string[] },
): CompiledTemplate {
  const fields = new Set(opts.fields);
  const mapFields = new Set(opts.mapFields ?? []);
  type Frame = { node: Extract<Node, { kind: 'if' }>; body: Node[]; sawElse: boolean; at: number };
  const root: Node[] = [];
  const stack: Frame[] = [];
  let body = root;
  for (const tok of lex(src)) {
    if (tok.kind === 'text') {
      body.push({ kind: 'text', text: tok.text });
      continue;
    }
    const ws = words(tok.body, tok.bodyAt, src);
    const [first, ...rest] = ws;
    const keyword = first?.text;
    if (keyword === 'if') {
      const node: Frame['node'] = {
        kind: 'if',
        branches: [{ cond: parseExpr(rest, src, fields, mapFields), body: [] }],
        otherwise: [],
      };
      body.push(node);
      stack.push({ node, body: node.branches[0]?.body ?? [], sawElse: false, at: tok.at });
      body = node.branches[0]?.body ?? [];
    } else if (keyword === 'else') {
      const frame = stack.at(-1);
      if (!frame || frame.sawElse)
        throw new TemplateError(`unexpected {{ else }} at ${position(src, tok.at)}`);
      if (rest[0]?.text === 'if') {
        const branch = { cond: parseExpr(rest.slice(1), src, fields, mapFields), body: [] as Node[] };
        frame.node.branches.push(branch);
        body = branch.body;
      } else {
        if (rest.length > 0)
          throw new TemplateError(`unexpected "${rest[0]?.text}" at ${position(src, tok.at)}`);
        frame.sawElse = true;
        body = frame.node.otherwise;
      }
    } else if (keyword === 'end') {
      if (!stack.pop() || rest.length > 0)
        throw new TemplateError(`unexpected {{ end }} at ${position(src, tok.at)}`);
      const parent = stack.at(-1);
      body = parent
        ? parent.sawElse
          ? parent.node.otherwise
          : (parent.node.branches.at(-1)?.body ?? root)
        : root;
    } else if (
      ['range', 'with', 'define', 'template', 'block', 'break', 'continue'].includes(keyword ?? '')
    ) {
      throw new TemplateError(`{{ ${keyword} }} is not supported, at ${position(src, tok.at)}`);
    } else {
      body.push({ kind: 'output', expr: parseExpr(ws, src, fields, mapFields) });
    }
  }
  const open = stack.at(-1);
  if (open) throw new TemplateError(`{{ if }} at ${position(src, open.at)} has no {{ end }}`);

  return {
    execute(values, escapeValue) {
      let out = '';
      const run = (nodes: Node[]) => {
        for (const n of nodes) {
          if (n.kind === 'text') out += n.text;
          else if (n.kind === 'output') out += escapeValue(printValue(evaluate(n.expr, values)));
          else {
            const hit = n.branches.find((b) => truthy(evaluate(b.cond, values)));
            run(hit ? hit.body : n.otherwise);
          }
        }
      };
      run(root);
      return out;
    },
  };
}

function evaluate(e: Expr, values: TemplateValues): unknown {
  switch (e.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return e.value;
    case 'field': {
      let v: unknown = values;
      for (const key of e.path) {
        // Own keys only: `.Data.constructor` must not reach Object.prototype.
        v =
          v !== null && typeof v === 'object' && Object.hasOwn(v, key)
            ? (v as Record<string, unknown>)[key]
            : undefined;
      }
      return v;
    }
    case 'call': {
      const args = e.args.map((a) => evaluate(a, values));
      switch (e.fn) {
        case 'not':
          return !truthy(args[0]);
        case 'and':
          return args.find((a) => !truthy(a)) ?? args.at(-1);
        case 'or':
          return args.find((a) => truthy(a)) ?? args.at(-1);
        case 'eq':
          return args.slice(1).some((a) => a === args[0]);
        case 'ne':
          return args[0] !== args[1];
      }
    }
  }
}

/** Go's truth: false, 0, nil, and empty strings, maps and slices are false. */
function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** As Go prints it: a missing map key prints nothing (html/template), a map as map[k:v …]. */
function printValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return `[${v.map(printValue).join(' ')}]`;
  if (typeof v === 'object')
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${printValue((v as Record<string, unknown>)[k])}`)
      .join(' ')}]`;
  return String(v);
}
