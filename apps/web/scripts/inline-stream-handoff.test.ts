import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { inlineStreamHandoff } from './inline-stream-handoff.ts';

// The tail React 19 and React Router 8 prerender (copied from a built page, the reveal runtime cut short).
const context =
  '<script>window.__reactRouterContext = {"basename":"/","ssr":false,"isSpaMode":false};window.__reactRouterContext.stream = new ReadableStream({start(controller){window.__reactRouterContext.streamController = controller;}}).pipeThrough(new TextEncoderStream());</script>';
const chunk =
  'window.__reactRouterContext.streamController.enqueue("[{\\"_1\\":2},\\"loaderData\\",{}]\\n");';
const close = 'window.__reactRouterContext.streamController.close();';
const tail =
  '<!--$?--><template id="B:0"></template><!--/$--><script id="_R_">requestAnimationFrame(function(){$RT=performance.now()});</script>' +
  `<div hidden id="S:0"><script>${chunk}</script><!--$?--><template id="B:1"></template><!--/$--></div>` +
  '<script>$RB=[];$RV=function(a){a.length=0};\n$RC=function(a,b){};$RC("B:0","S:0")</script>' +
  `<div hidden id="S:1"><script>${close}</script></div><script>$RC("B:1","S:1")</script>`;
const page = `<html><body><main>x</main>${context}<script type="module">boot()</script>${tail}</body></html>`;

describe('inlineStreamHandoff', () => {
  it('moves the chunks into the context script and removes the boundaries and the reveal runtime', () => {
    const out = inlineStreamHandoff(page);
    expect(out).toBe(
      `<html><body><main>x</main>${context.replace('</script>', `${chunk}${close}</script>`)}<script type="module">boot()</script></body></html>`,
    );
    expect(out.match(/<script/g)).toHaveLength(2);
  });

  it('delivers the same data to the client stream as the streamed page', async () => {
    const code = inlineStreamHandoff(page).match(/<script>([\s\S]*?)<\/script>/)?.[1] ?? '';
    const window: Record<string, unknown> = {};
    runInNewContext(code, { window, ReadableStream, TextEncoderStream });
    const stream = (window.__reactRouterContext as { stream: ReadableStream<Uint8Array> }).stream;
    const text = await new Response(stream).text();
    expect(text).toBe('[{"_1":2},"loaderData",{}]\n');
  });

  it('stops the build on anything it does not know instead of dropping it', () => {
    expect(() => inlineStreamHandoff(page.replace('</body>', '<p>late</p></body>'))).toThrow(
      /unexpected markup/,
    );
    expect(() => inlineStreamHandoff(page.replace(close, 'alert(1)'))).toThrow(/unexpected script/);
    expect(() =>
      inlineStreamHandoff(page.replace(`<div hidden id="S:1"><script>${close}</script></div>`, '')),
    ).toThrow(/close/);
    expect(() => inlineStreamHandoff('<html><body></body></html>')).toThrow(/not found/);
  });
});
