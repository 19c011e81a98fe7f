// Rewrites the end of a prerendered page so React Router's data hand-off costs one inline script
// instead of six (issue #18: every byte and every CSP hash of the Arabic home page counts; its
// document must fit Lighthouse's first round trip of 14,600 B, headers included).
//
// At prerender, `ServerRouter` renders `StreamTransfer` (server only: the client never renders it) in
// nested Suspense boundaries, one per chunk of the turbo-stream that carries the loader data. React
// streams each resolved boundary out of line: a `<template id="B:n">` placeholder, the content in a
// `<div hidden id="S:n">`, and its reveal runtime (`$RB`/`$RV`/`$RC`, ~850 B) plus one `$RC(…)` call
// per boundary. The only effect any of it has for the client is running the content's scripts in
// order: `streamController.enqueue(chunk)` for each chunk, then `streamController.close()`. The page is
// complete at build time, so that end result is written directly: the calls are appended to the inline
// script that creates the stream (`window.__reactRouterContext = …`, rendered by <Scripts>), and the
// boundaries, the reveal runtime and React's `$RT` timing script are removed. Hydration does not see
// the difference: the removed nodes sit after the app in <body> and no client component renders them
// (React 19 skips unmatched trailing nodes of <body>), and the context script keeps its element.
//
// Any markup in that tail other than what is described here stops the build instead of being dropped.

const tailPattern = /<!--\$\?--><template id="B:0"><\/template><!--\/\$-->[\s\S]*?(?=<\/body>)/;
const scriptPattern = /<script(?: id="_R_")?>([\s\S]*?)<\/script>/g;
const chunkPattern =
  /^window\.__reactRouterContext\.streamController\.(?:enqueue\("(?:[^"\\]|\\.)*"\)|close\(\));$/;
const revealPattern =
  /^(?:requestAnimationFrame\(function\(\)\{\$RT=performance\.now\(\)\}\);|\$RB=\[\];[\s\S]*\$RC\("B:\d+","S:\d+"\)|\$RC\("B:\d+","S:\d+"\))$/;
const boundaryMarkup =
  /<!--\$\?-->|<template id="B:\d+"><\/template>|<!--\/\$-->|<div hidden id="S:\d+">|<\/div>/g;
const contextScriptPattern =
  /(<script>window\.__reactRouterContext = [^<]*?\.pipeThrough\(new TextEncoderStream\(\)\);)(<\/script>)/;

/** Returns the page with the stream hand-off inlined into the context script (see above). */
export function inlineStreamHandoff(html: string): string {
  const tail = html.match(tailPattern)?.[0];
  if (tail === undefined) throw new Error('inline-stream-handoff: the streamed hand-off was not found');
  const calls: string[] = [];
  for (const [, code = ''] of tail.matchAll(scriptPattern)) {
    if (chunkPattern.test(code)) calls.push(code);
    else if (!revealPattern.test(code)) {
      throw new Error(`inline-stream-handoff: unexpected script in the hand-off: ${code.slice(0, 80)}`);
    }
  }
  const rest = tail.replace(scriptPattern, '').replace(boundaryMarkup, '');
  if (rest !== '')
    throw new Error(`inline-stream-handoff: unexpected markup in the hand-off: ${rest.slice(0, 80)}`);
  // The chunks are written in stream order and the stream must end closed, exactly once.
  const closes = calls.filter((call) => call.endsWith('.close();')).length;
  if (closes !== 1 || !calls.at(-1)?.endsWith('.close();')) {
    throw new Error('inline-stream-handoff: the hand-off does not end with one close()');
  }
  if (!contextScriptPattern.test(html)) {
    throw new Error('inline-stream-handoff: the React Router context script was not found');
  }
  return html
    .replace(tailPattern, '')
    .replace(contextScriptPattern, (_, start: string, end: string) => `${start}${calls.join('')}${end}`);
}
