// Rewrites React Router's bootstrap in a prerendered page so no framework script can delay the
// first paint (frontend-performance reference §1, "defer the RR bootstrap until load"):
//  - the <link rel="modulepreload"> tags are removed from <head> (High-priority scripts that
//    Lighthouse's simulation counts as render-blocking when they finish before first paint);
//  - the inline module script's static imports become dynamic imports that start at the page's
//    trigger (`load`, or the first interaction: see DeferTrigger), and the same modulepreload hints
//    are injected at that moment so the chunks download in parallel.
//  - when the page inlines only its critical CSS (css/critical-css.ts), the whole stylesheet is
//    loaded at that same moment and hydration waits for it, so whatever React renders afterwards
//    (toasts, dialogs, error states, another route) is styled;
//  - the web app manifest is linked at that moment too, not in the HTML: Chrome fetches a linked
//    manifest (Medium priority) and its icon (High) about 100–200 ms into the load, and when either
//    started before the largest paint, Lighthouse's simulation put a whole round trip (150 ms) on the
//    LCP path (issue #18: /auth 907 ms, /ar/auth 754 ms, depending on that race alone). Installing the
//    site as an app needs the manifest long after the first paint.
// Hydration, client navigation and everything else in the framework stay as they are.

const modulePreloadPattern = /<link rel="modulepreload" href="([^"]+)"\/>/g;
const bootstrapPattern = /<script type="module" async="">([\s\S]*?)<\/script>/;

export type DeferTrigger = 'load' | 'interaction';

/**
 * `load`: start the framework when the window has loaded. `interaction` (home and auth pages): start
 * it at the visitor's first interaction (pointer down or move, touch, key, focus, scroll), or on load
 * when there is state to apply at once: a stored `sb-*-auth-token` session or an email link's result in the
 * URL (`?code=`, an error, or fragment tokens to throw away), so the signed-in navigation / redirect happens without any interaction,
 * or a `?mode=` the prerendered sign-in page must switch to.
 *
 * A click on a plain button before the framework started (e.g. the auth page's mode toggle: the tap
 * that starts the framework is also the click that should switch the mode) is replayed once React
 * has hydrated (`data-hydrated` on <html>), so no first tap is lost. Popover toggles work natively.
 * Submit buttons stay disabled until hydration (no native submission), but a submit asked for before
 * it (a tap on that button, or Enter in a field, as with autofilled credentials) is sent once hydrated;
 * that part is left out of pages without a <form> (the home pages).
 */
export function deferBootstrap(
  html: string,
  trigger: DeferTrigger = 'load',
  { stylesheet, manifest }: { stylesheet?: string; manifest?: string } = {},
): string {
  const preloads = [...html.matchAll(modulePreloadPattern)].map((match) => match[1] as string);
  const bootstrap = html.match(bootstrapPattern);
  if (!bootstrap) throw new Error('defer-bootstrap: React Router bootstrap script not found');
  const source = bootstrap[1] as string;

  const sideEffectImports = [...source.matchAll(/^import "([^"]+)";$/gm)].map((m) => m[1] as string);
  const namedImports = [...source.matchAll(/^import \* as (\w+) from "([^"]+)";$/gm)].map((m) => ({
    name: m[1] as string,
    href: m[2] as string,
  }));
  const modulesAssignment = source.match(/window\.__reactRouterRouteModules = (\{[^}]*\});/);
  const entry = source.match(/import\("([^"]+)"\);/);
  if (!modulesAssignment || !entry || namedImports.length === 0) {
    throw new Error('defer-bootstrap: unexpected React Router bootstrap shape');
  }

  // Submits before hydration can only come from a form the prerendered page already has.
  const hasForm = /<form[\s>]/.test(html);
  // Likewise a click to replay needs a plain button (not a popover toggle, which works natively, nor
  // a submit button) in the prerendered page: the home pages have none.
  const hasPlainButton = [...html.matchAll(/<button\b[^>]*>/gi)].some(
    ([tag]) => !/\spopovertarget=/i.test(tag) && !/\stype="submit"/i.test(tag),
  );
  const names = namedImports.map((i) => i.name).join(',');
  const imports = [...sideEffectImports, ...namedImports.map((i) => i.href)]
    .map((href) => `import(${JSON.stringify(href)})`)
    .join(',');
  // One hole per side-effect import, so the names line up with their modules.
  const holes = ','.repeat(sideEffectImports.length);
  // The whole sheet is awaited with the modules (a failed load is not waited for twice: the inlined
  // rules still style the page, and hydration must not hang on a stylesheet).
  const loadStylesheet = stylesheet
    ? `,new Promise(r=>{const c=document.createElement("link");c.rel="stylesheet";c.href=${JSON.stringify(stylesheet)};c.onload=c.onerror=r;document.head.append(c)})`
    : '';
  const linkManifest = manifest
    ? `const m=document.createElement("link");m.rel="manifest";m.href=${JSON.stringify(manifest)};document.head.append(m);`
    : '';
  const script =
    `<script type="module">let x=0;const b=async()=>{${linkManifest}for(const h of ${JSON.stringify(preloads)}){const l=document.createElement("link");l.rel="modulepreload";l.href=h;document.head.append(l)}` +
    `const[${holes}${names}]=await Promise.all([${imports}${loadStylesheet}]);` +
    `window.__reactRouterRouteModules=${modulesAssignment[1]};x=1;import(${JSON.stringify(entry[1])})};` +
    (trigger === 'load'
      ? `document.readyState==="complete"?b():addEventListener("load",b,{once:true})</script>`
      : `let s=0,p;const d=document.documentElement,g=()=>{if(s)return;s=1;for(const e of E)removeEventListener(e,g,true);b()},E=["pointerdown","pointermove","touchstart","keydown","focusin","scroll","wheel"];` +
        `for(const e of E)addEventListener(e,g,{capture:true,passive:true});` +
        (hasPlainButton
          ? `addEventListener("click",e=>{x||(p=e.target.closest?.("button:not([popovertarget],[type=submit])")||p)},true);`
          : '') +
        (hasForm
          ? // A submit asked for before hydration (a tap on the still-disabled submit button, or Enter in a
            // field: autofilled credentials need no other interaction) is remembered and sent once hydrated.
            // A disabled button gets no events (pointer-events: none; the form receives them), so a tap is
            // matched to the form's submit button by position. Both listeners go once hydrated.
            `let f;const P=e=>{const b=e.target.closest?.("form")?.querySelector("button[type=submit]"),r=b?.getBoundingClientRect();` +
            `r&&e.clientX>=r.left&&e.clientX<=r.right&&e.clientY>=r.top&&e.clientY<=r.bottom&&(f=b.form)},` +
            `K=e=>{e.key==="Enter"&&e.target.matches?.("form input")&&(f=e.target.form)};` +
            `addEventListener("pointerdown",P,true);addEventListener("keydown",K,true);` +
            `new MutationObserver((_,o)=>{if(d.dataset.hydrated){o.disconnect();removeEventListener("pointerdown",P,true);removeEventListener("keydown",K,true);` +
            `p?.isConnected&&p.click();f?.isConnected&&f.requestSubmit()}}).observe(d,{attributeFilter:["data-hydrated"]});`
          : // No form in the prerendered page (the home pages): nothing to submit before hydration, and
            // the bytes count toward the Arabic home page's first round trip (issue #18).
            hasPlainButton
            ? `new MutationObserver((_,o)=>{if(d.dataset.hydrated){o.disconnect();p?.isConnected&&p.click()}}).observe(d,{attributeFilter:["data-hydrated"]});`
            : '') +
        `const r=()=>{try{if(/access_token|error_description|error_code|[?&#]error=|[?&]code=|[?&]mode=/.test(location.search+location.hash))return 1;for(let i=0;i<localStorage.length;i++)if(/^sb-.+-auth-token$/.test(localStorage.key(i)))return 1}catch{}return 0};` +
        `r()&&(document.readyState==="complete"?g():addEventListener("load",g,{once:true}))</script>`);

  return html.replace(modulePreloadPattern, '').replace(bootstrapPattern, () => script);
}
