import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Product, startProduct } from './support/product.ts';

// `npm start` runs scripts/start.mjs, which imports the service entry. This proves that path serves the
// site and the auth API from one process (the service entry alone is what the other e2e files start).
describe('npm start (scripts/start.mjs)', () => {
  let product: Product;

  beforeAll(async () => {
    // The global setup has just built the site; the staleness check is covered by start.mjs itself.
    product = await startProduct({ SKIP_SITE_BUILD: 'true' }, 'scripts/start.mjs');
  });
  afterAll(async () => product?.stop());

  it('serves the prerendered site and the auth API on one origin', async () => {
    const home = await fetch(`${product.origin}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toContain('text/html');
    expect(await home.text()).toContain('id="products"');

    const health = await fetch(`${product.origin}/auth/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ name: 'GoTrue' });

    const missing = await fetch(`${product.origin}/definitely/not/here`);
    expect(missing.status).toBe(404);
  });

  it('tells the developer where the development mailbox is', () => {
    expect(product.logs()).toContain(`/auth/v1/_dev/mailbox`);
  });
});
