// The Go-template subset operators' Supabase templates use (core/mail/go-template.ts): what runs as
// Go runs it, and what does not is refused when parsed (at start-up), never at send time.
import { describe, expect, it } from 'vitest';
import { compileTemplate, escapeHtmlLikeGo } from '../../../src/core/mail/go-template.ts';

const fields = ['Email', 'Token', 'Data'];
const run = (src: string, values: Record<string, unknown>, escapeValue = escapeHtmlLikeGo) =>
  compileTemplate(src, { fields, mapFields: ['Data'] }).execute(values, escapeValue);

describe('Go template subset', () => {
  it('prints fields and map keys, escaped as html/template does', () => {
    expect(run('<b>{{ .Email }}</b> {{.Data.name}}', { Email: `a+b"'&<>`, Data: { name: 'x' } })).toBe(
      '<b>a&#43;b&#34;&#39;&amp;&lt;&gt;</b> x',
    );
    expect(escapeHtmlLikeGo('\0')).toBe('\uFFFD');
    // A missing key prints nothing; prototype keys are not map keys.
    expect(run('[{{ .Data.missing }}][{{ .Data.constructor }}]', { Data: {} })).toBe('[][]');
    expect(run('{{ .Data }}', { Data: { b: 2, a: 'x' } })).toBe('map[a:x b:2]');
  });

  it('runs if / else if / else with eq, ne, and, or, not and Go truthiness', () => {
    const src =
      '{{ if eq .Data.locale "ar" }}AR{{ else if and .Token (not .Data.quiet) }}CODE{{ else }}NONE{{ end }}';
    expect(run(src, { Data: { locale: 'ar' }, Token: '1' })).toBe('AR');
    expect(run(src, { Data: { locale: 'en' }, Token: '1' })).toBe('CODE');
    expect(run(src, { Data: { quiet: true }, Token: '1' })).toBe('NONE');
    expect(run(src, { Data: {}, Token: '' })).toBe('NONE');
    expect(
      run('{{ if eq .Data.n 0 }}zero{{ end }}{{ if ne .Email "a" }}!{{ end }}', {
        Data: { n: 0 },
        Email: 'b',
      }),
    ).toBe('zero!');
    expect(
      run('{{ if or .Data.a .Data.b }}y{{ end }}{{ if .Data.list }}n{{ end }}', {
        Data: { b: 'x', list: [] },
      }),
    ).toBe('y');
    expect(run('{{ if eq .Data.l "ar" "ar-SA" }}y{{ end }}', { Data: { l: 'ar-SA' } })).toBe('y');
  });

  it('honours trim markers, comments (even with }} inside) and raw strings', () => {
    expect(run('a  {{- .Email -}}  b', { Email: 'X' })).toBe('aXb');
    expect(run('a {{/* a }} comment */}} b', {})).toBe('a  b');
    expect(run('a\n{{- /* trimmed */ -}}\nb', {})).toBe('ab');
    expect(run('{{ if eq .Email `x"y` }}ok{{ end }}', { Email: 'x"y' })).toBe('ok');
    expect(run('{{ "a\\"b" }}', {}, (s) => s)).toBe('a"b');
  });

  it('refuses, with a position, what it cannot run exactly as Go would', () => {
    const bad: [string, RegExp][] = [
      ['{{ .Nope }}', /unknown variable "\.Nope" at line 1, column 4/],
      ['{{ .Email.x }}', /\.Email has no fields/],
      ['x\n{{ if .Token }}y', /\{\{ if \}\} at line 2, column 1 has no \{\{ end \}\}/],
      ['{{ end }}', /unexpected \{\{ end \}\}/],
      ['{{ if .Token }}{{ else }}{{ else }}{{ end }}', /unexpected \{\{ else \}\}/],
      ['{{ .Token | html }}', /pipes/],
      ['{{ printf "%s" .Token }}', /unsupported "printf"/],
      ['{{ range .Data }}{{ end }}', /\{\{ range \}\} is not supported/],
      ['{{ with .Data }}{{ end }}', /\{\{ with \}\} is not supported/],
      ['{{ $x := 1 }}', /unsupported "\$x"/],
      ['{{ .Email', /unclosed action/],
      ['{{ }}', /empty action/],
      ['{{ not .Token .Email }}', /wrong number of arguments for not/],
      ['{{ if eq .Token }}{{ end }}', /wrong number of arguments for eq/],
      ['{{ "unterminated }}', /cannot read/],
    ];
    for (const [src, message] of bad)
      expect(() => compileTemplate(src, { fields, mapFields: ['Data'] }), src).toThrow(message);
  });
});
