// A local stand-in for an SMS or WhatsApp provider's HTTP API (node:http on 127.0.0.1): records each
// request exactly as it arrived (method, path, headers, raw body) and answers as the test sets it:
// the provider's success, a refusal (4xx), an outage (5xx) or no answer at all (a timeout).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string };
export type GatewayAnswer = { status: number; body: unknown } | 'hang';

export type FakeGateway = {
  url: string;
  requests: RecordedRequest[];
  /** The answer to every following request (until changed). */
  answer(a: GatewayAnswer): void;
  /** Resolves with the n-th request (1-based) once it has arrived. */
  nth(n: number, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
};

export async function startFakeGateway(initial: GatewayAnswer): Promise<FakeGateway> {
  let current = initial;
  const requests: RecordedRequest[] = [];
  const waiting = new Set<() => void>();
  const hung = new Set<import('node:http').ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      for (const wake of waiting) wake();
      const a = current;
      if (a === 'hang') {
        hung.add(res);
        return;
      }
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(a) {
      current = a;
    },
    nth(n, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const r = requests[n - 1];
          if (!r) return false;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(r);
          return true;
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`request #${n} did not arrive within ${timeoutMs} ms (got ${requests.length})`));
        }, timeoutMs);
        if (!check()) waiting.add(check);
      });
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
