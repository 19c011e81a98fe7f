/** html-to-text's defaults upper-case headings, which would also upper-case a variable inside one. */
export const headingSelectors = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
  selector,
  options: { uppercase: false },
}));

/** Blank lines at most one at a time, no trailing spaces: html-to-text leaves some around skipped parts. */
export const tidyText = (s: string) =>
  s
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
