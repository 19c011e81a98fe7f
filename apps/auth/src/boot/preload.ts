// What every process of the service switches on before its module graph loads (an ES module graph
// is resolved and linked whole before any of it runs): main.ts imports this first, and the CLIs'
// npm scripts pass it to Node with `--import`.
// - the resolve shortcut (resolve-shortcut.ts: ~1.5 s and ~200 MB less at start-up);
// - Node's compile cache (V8's code cache and the type-stripped sources of the ~1,900 modules): a
//   restart loads them in about 60 % of the time (README, "Footprint"). It lives where
//   NODE_COMPILE_CACHE says (the systemd unit: /var/cache/namaa/compile), by default in the system's
//   temporary directory; Node ignores entries whose source changed. NODE_DISABLE_COMPILE_CACHE=1
//   turns it off.
import { enableCompileCache } from 'node:module';
import { registerResolveShortcut } from './resolve-shortcut.ts';

registerResolveShortcut();
enableCompileCache?.();
