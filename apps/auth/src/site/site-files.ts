import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

/** One file of the prerendered site, held in memory with its precompressed variants. */
export type SiteFile = {
  body: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  contentType: string;
  etag: string;
  /** Hashed build output (Vite puts it under /assets/) never changes under the same name. */
  immutable: boolean;
  /** For HTML: CSP source expressions that allow exactly the inline scripts this page carries. */
  inlineScriptHashes: string[];
};

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
};

/** Files larger than this are not served from memory (a marketing site has no such files). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

const inlineScriptPattern = /<script(?![^>]*\bsrc=)([^>]*)>([\s\S]*?)<\/script>/gi;
/**
 * JSON data blocks (the pages' JSON-LD) are never executed, so script-src does not apply to them and
 * a hash for them would only lengthen every page's CSP header (issue #18: header bytes count toward
 * the first round trip). Only these exact types are skipped; any other type keeps its hash.
 */
const dataBlockType = /\btype=(["']?)application\/(?:ld\+)?json\1(?=[\s/]|$)/i;

/** The `'sha256-…'` CSP sources for every inline <script> of an HTML page that a browser may execute. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(inlineScriptPattern)) {
    const code = match[2] ?? '';
    if (code.length === 0 || dataBlockType.test(match[1] ?? '')) continue;
    hashes.add(`'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`);
  }
  return [...hashes];
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/**
 * Loads the whole build output once at start-up. The site is a few hundred kilobytes, so serving it
 * from memory costs little and keeps every request free of disk I/O. Keys are URL paths ("/auth/index.html").
 */
export function loadSiteFiles(dir: string): Map<string, SiteFile> {
  const files = new Map<string, SiteFile>();
  if (!existsSync(dir)) return files;
  const all = walk(dir);
  const present = new Set(all);
  for (const full of all) {
    if (full.endsWith('.br') || full.endsWith('.gz')) continue;
    if (statSync(full).size > MAX_FILE_BYTES) continue;
    const urlPath = `/${relative(dir, full).split(sep).join('/')}`;
    const body = readFileSync(full);
    const ext = extname(full).toLowerCase();
    const file: SiteFile = {
      body,
      contentType: contentTypes[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      immutable: urlPath.startsWith('/assets/'),
      inlineScriptHashes: ext === '.html' ? inlineScriptHashes(body.toString('utf8')) : [],
    };
    if (present.has(`${full}.br`)) file.br = readFileSync(`${full}.br`);
    if (present.has(`${full}.gz`)) file.gzip = readFileSync(`${full}.gz`);
    files.set(urlPath, file);
  }
  return files;
}
