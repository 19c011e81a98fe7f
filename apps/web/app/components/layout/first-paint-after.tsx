/**
 * Holds the page's first frame until the element with this id is in the document
 * (`<link rel="expect" blocking="render">`; React hoists the link into <head>). The spec waits for
 * the element to be parsed whole; Chromium 156 was seen to paint once its start tag was in, so name
 * an element that comes AFTER what must be whole on the first frame.
 *
 * Why: on a slow CPU the HTML parser yields mid-document, and a frame painted there shows a row half
 * built. A language link painted as its icon alone, then widened by its name, or placed at the row's
 * end before the controls after it arrived, moved when the rest was parsed: a layout shift (0.0012
 * at 1280 px with the CPU 4× slower, e2e/arabic-font-paint.test.ts). The top bars are the start of
 * the body, so the hold is a few hundred µs. Browsers without `rel=expect` ignore the link and paint
 * as before.
 */
export function FirstPaintAfter({ id }: { id: string }) {
  return <link rel="expect" href={`#${id}`} {...{ blocking: 'render' }} />;
}
