/**
 * Waits, when the next boundary of fixed `windowSec`-second windows is less than `needMs` away, until
 * it has passed. The per-IP and per-address limits count in windows aligned to the clock
 * (core/rate-limit.ts), so a test that fills one window and expects the next request refused fails
 * when its requests straddle a boundary: the last one lands in a fresh window. On the real clock that
 * is a few runs in a hundred for a 5-minute window; this makes it none. Cost: at most `needMs`, and
 * only that rarely.
 */
export async function awayFromWindowEdge(windowSec: number, needMs = 15_000): Promise<void> {
  const windowMs = windowSec * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
