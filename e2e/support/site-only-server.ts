import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSiteApp } from '../../apps/auth/src/site/site-app.ts';

/**
 * Serves only the built site through the product's own site app (no auth API). Used for the pages
 * that need no auth service (404, meta, axe) when the whole product is not wanted.
 */
export async function startSiteOnly(dir: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const app = createSiteApp({ dir, runtimeConfig: { supabaseUrl: '', anonKey: 'site-only' } });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
