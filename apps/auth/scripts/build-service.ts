// `npm run build -w apps/auth` (and the root `npm run build`, and `npm start` when it is missing or
// stale): bundles the service (src/run-service.ts and everything it imports, dependencies included)
// into apps/auth/dist with esbuild, for a faster start (src/boot/service-bundle.ts says why and how
// main.ts decides to run it). Usage: node apps/auth/scripts/build-service.ts [--out <dir>]
//
// - Left outside the bundle: packages that load files next to their own code (PGlite's WebAssembly
//   and data files, argon2's native binary, pino's transport workers) and pg's optional native driver.
// - `import.meta.url` in a bundled source file keeps meaning that file (migrate.ts finds its
//   migrations folder beside it, pglite-create.ts its child script, the mail designs their JSON):
//   each use is rewritten to the source file's URL, relative to the bundle, so the checkout can move.
// - Built into a new folder, then swapped in with renames: a process starting meanwhile sees the old
//   bundle or none (and runs the sources), never half a bundle. The fingerprint is written last.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { build, type Plugin } from 'esbuild';
import {
  authRoot,
  BUNDLE_INPUTS,
  DEFAULT_BUNDLE_DIR,
  FINGERPRINT_FILE,
  sourceFingerprint,
} from '../src/boot/service-bundle.ts';

const { values: args } = parseArgs({ options: { out: { type: 'string' } } });
const out = args.out ?? DEFAULT_BUNDLE_DIR;
const started = Date.now();
const fingerprint = sourceFingerprint(BUNDLE_INPUTS);
const staging = `${out}.building-${process.pid}`;
const old = `${out}.old-${process.pid}`;
const sourceDir = join(authRoot, 'src');

function keepFileUrls(outdir: string): Plugin {
  return {
    name: 'keep-file-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (file) => {
        if (!file.path.startsWith(sourceDir)) return undefined;
        const text = readFileSync(file.path, 'utf8');
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
        const fromBundle = JSON.stringify(relative(outdir, file.path));
        return {
          contents: text.replaceAll('import.meta.url', `new URL(${fromBundle}, import.meta.url).href`),
          loader: 'ts',
        };
      });
    },
  };
}

rmSync(staging, { recursive: true, force: true });
mkdirSync(dirname(out), { recursive: true });
try {
  await build({
    entryPoints: { 'run-service': join(sourceDir, 'run-service.ts') },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    splitting: true, // the modules loaded on first use (WebAuthn, the OpenAPI document…) stay apart
    outdir: staging,
    external: ['@electric-sql/pglite', '@node-rs/argon2', 'pino', 'pg-native'],
    // The CommonJS dependencies inside an ES module bundle need a `require`.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    // Relative to the final folder: the staging folder is renamed into its place.
    plugins: [keepFileUrls(out)],
    keepNames: true, // error names and stack frames stay readable
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  writeFileSync(
    join(staging, FINGERPRINT_FILE),
    `${JSON.stringify({ fingerprint, builtAt: new Date().toISOString() })}\n`,
  );
  try {
    renameSync(out, old);
  } catch {
    // no earlier bundle
  }
  // Fails (ENOTEMPTY) only if another build swapped its bundle in meanwhile: that one then stays.
  renameSync(staging, out);
  rmSync(old, { recursive: true, force: true });
} catch (err) {
  rmSync(staging, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
  console.error(`build-service: ${(err as Error).message}`);
  process.exit(1);
}
console.error(
  `build-service: bundled the service into ${relative(process.cwd(), out) || '.'} in ${Date.now() - started} ms`,
);
