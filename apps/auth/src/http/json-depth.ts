/**
 * Request bodies may nest objects and arrays at most this deep. Real requests nest 2–3 levels (user
 * metadata a few more); a 10,000-deep body parses fine in V8 but overflows the stack further on
 * (serialising the response, PostgreSQL's jsonb parser), which would surface as a 500.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `limit`. One pass over the text, skipping string contents, so
 * it costs next to nothing on the hot paths' ~100-byte bodies and cannot itself overflow the stack.
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}
