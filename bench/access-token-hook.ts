/**
 * A local custom access-token hook for the throughput bench (BENCH_HOOK=http): a plain Node HTTP
 * server that checks each request's Standard Webhooks signature (as a real hook must) and answers
 * the claims with one more, `tenant_id`. Started by bench/auth-throughput.ts as its own process;
 * prints `{"url": …, "secret": …}` on its first line of stdout.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

const key = randomBytes(32).toString('base64');
const verifier = new Webhook(key);
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    try {
      const body = verifier.verify(raw, req.headers as Record<string, string>) as {
        claims: Record<string, unknown>;
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ claims: { ...body.claims, tenant_id: 'bench-tenant' } }));
    } catch {
      res.writeHead(401).end();
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, secret: `v1,whsec_${key}` }));
});
