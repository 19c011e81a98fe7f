/** Debian's Chromium (never a downloaded browser). */
export const chromiumPath = process.env.CHROME_PATH ?? '/usr/bin/chromium';

/**
 * Headless flags for this closed network: without the background-networking ones Chromium keeps
 * dialling out to hosts it cannot reach. Shared with the Lighthouse benchmark.
 */
export const chromiumFlags = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
