/**
 * The sign-in ceiling for bench/auth-throughput.ts (a bench fixture, not part of the product): an
 * HTTP server that does nothing per request but read the JSON body and run the service's own
 * `verifyPassword` (same argon2id parameters, same one-hash-per-core queue), then answer a small
 * JSON. No database, no rate limit, no session, no token. Under the bench's load (same load generator,
 * same 32 connections, same two cores) its rate is the most any password sign-in can reach on this
 * machine, so the service's sign-in rate can be read against it as well as against argon2 alone.
 * Started as a child process with BENCH_PASSWORD; prints "running at <url>" like the service.
 */
import { createServer } from 'node:http';
import { hashPassword, verifyPassword } from '../apps/auth/src/crypto/passwords.ts';

const stored = await hashPassword(process.env.BENCH_PASSWORD ?? '');

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    let password = '';
    try {
      password = String(JSON.parse(Buffer.concat(chunks).toString('utf8')).password ?? '');
    } catch {
      // answered 400 below, like a wrong password
    }
    const { ok } = await verifyPassword(stored, password);
    res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok }));
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`running at http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.once('SIGTERM', () => process.exit(0));
