// A real HTTP auth-hook endpoint for the tests: it verifies every request's Standard Webhooks
// signature with the `standardwebhooks` library (as a hook author would), records what it was sent,
// and answers with whatever the test's handler returns.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type HookCall = { body: Record<string, unknown>; headers: IncomingHttpHeaders; verified: boolean };
export type HookReply = {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it stands. */
  body?: unknown;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
};
export type HookHandler = (body: Record<string, unknown>) => HookReply | Promise<HookReply>;

export type HookServer = {
  url: string;
  /** The `v1,whsec_…` secret to configure as HOOK_*_SECRETS. */
  secret: string;
  calls: HookCall[];
  /** Replaces the handler (the default echoes `{}`). */
  handle(handler: HookHandler): void;
  close(): Promise<void>;
};

export async function startHookServer(): Promise<HookServer> {
  const key = randomBytes(32).toString('base64');
  const secret = `v1,whsec_${key}`;
  const verifier = new Webhook(key);
  const calls: HookCall[] = [];
  let handler: HookHandler = () => ({ body: {} });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        verifier.verify(raw, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        });
        verified = true;
      } catch {
        verified = false;
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      calls.push({ body, headers: req.headers, verified });
      if (!verified) {
        res.writeHead(401).end();
        return;
      }
      const reply = await handler(body);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      const isText = typeof reply.body === 'string';
      res.writeHead(reply.status ?? 200, {
        'content-type': isText ? 'text/plain' : 'application/json',
        ...reply.headers,
      });
      res.end(reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    secret,
    calls,
    handle(h) {
      handler = h;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
