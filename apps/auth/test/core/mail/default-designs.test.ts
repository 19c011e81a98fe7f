// The built-in mail designs are rendered with React in a worker thread (core/mail/default-designs.ts),
// so React and react-email's components never load into the server's own heap (README, "Footprint").
// A child process records every module its main thread resolves while the templates are prepared.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'namaa-designs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const templates = fileURLToPath(new URL('../../../src/core/mail/templates.ts', import.meta.url));
const config = fileURLToPath(new URL('../../../src/config.ts', import.meta.url));

function resolvedInMainThread(env: Record<string, string>): { urls: string[]; subject: string } {
  const script = `
    import { registerHooks } from 'node:module';
    const urls = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); urls.push(r.url); return r; } });
    const { loadConfig } = await import(${JSON.stringify(config)});
    const { createMailTemplates } = await import(${JSON.stringify(templates)});
    const t = await createMailTemplates(loadConfig({ NODE_ENV: 'test', ...${JSON.stringify(env)} }));
    const m = t.render('recovery', 'ar', { ConfirmationURL: 'https://example.com/l', Token: '123456', TokenHash: 'h',
      SiteURL: 'https://example.com', RedirectTo: '', Email: 'a@example.com', NewEmail: '', Data: {} });
    console.log(JSON.stringify({ urls, subject: m.subject }));
  `;
  // A file, not --eval: under vitest the worker's own flags would clash with --input-type.
  const file = join(dir, `probe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, script);
  const run = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 120_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) as string);
}

it('prepares every design without loading React in the main thread', () => {
  const { urls, subject } = resolvedInMainThread({});
  expect(subject).toBe('إعادة تعيين كلمة المرور لحسابك في نماء');
  expect(urls.some((u) => u.includes('/core/mail/default-designs.ts'))).toBe(true);
  for (const heavy of ['/react/', '/react-dom/', '/@react-email/', '/email-layout.ts'])
    expect(
      urls.filter((u) => u.includes(heavy)),
      heavy,
    ).toEqual([]);
});

it("loads only html-to-text's wrapper when an operator template needs it", () => {
  const recovery = join(dir, 'recovery.html');
  writeFileSync(recovery, '<h1>Reset</h1><p><a href="{{ .ConfirmationURL }}">Choose a new password</a></p>');
  const { urls } = resolvedInMainThread({ MAILER_TEMPLATES_RECOVERY: recovery });
  expect(urls.some((u) => u.includes('/@react-email/render/'))).toBe(true);
  expect(
    urls.filter((u) => u.includes('/@react-email/components') || u.includes('/email-layout.ts')),
  ).toEqual([]);
});
