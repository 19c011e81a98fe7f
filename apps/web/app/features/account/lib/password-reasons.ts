/** The words for the service's `weak_password.reasons` (GoTrue: length, characters, pwned). */
export type ReasonTexts = { length: string; characters: string; pwned: string; other: string };

/** The reasons a password was refused, in words, joined for the page's language. */
export function weakPasswordText(
  reasons: readonly string[] | undefined,
  texts: ReasonTexts,
  separator: string,
): string {
  const words = (reasons?.length ? reasons : ['other']).map((reason) =>
    reason === 'length' || reason === 'characters' || reason === 'pwned' ? texts[reason] : texts.other,
  );
  return [...new Set(words)].join(separator);
}

/** Fills `{0}` in a catalog text. */
export function fill(template: string, value: string): string {
  return template.replace('{0}', value);
}
