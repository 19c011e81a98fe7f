import { useEffect, useState } from 'react';

/** `{0}` in a catalog text replaced by a number. */
export function withSeconds(template: string, seconds: number): string {
  return template.replace('{0}', String(seconds));
}

/** Is this auth-js error the per-address mail floor (or another mail quota)? */
export function isMailRateLimit(error: unknown): boolean {
  return (
    !!error &&
    typeof error === 'object' &&
    'code' in error &&
    (error as { code?: unknown }).code === 'over_email_send_rate_limit'
  );
}

/**
 * Seconds left before another mail may be asked for. `start(n)` (re)starts it; it counts down once a
 * second to 0. The mail floor is GoTrue's 60 s by default: used when the service's answer did not
 * say how long (`Retry-After`).
 */
export function useCountdown(): [number, (seconds: number | undefined) => void] {
  const [until, setUntil] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until <= now) return;
    const timer = setTimeout(() => setNow(Date.now()), Math.min(1000, until - now));
    return () => clearTimeout(timer);
  }, [until, now]);
  const left = Math.max(0, Math.ceil((until - now) / 1000));
  const start = (seconds: number | undefined) => {
    const t = Date.now();
    setNow(t);
    setUntil(t + (seconds ?? 60) * 1000);
  };
  return [left, start];
}
