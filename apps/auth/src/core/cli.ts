import { ConfigError } from '../config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { causeOf, StartupError } from './startup-error.ts';

/**
 * The frame every command-line tool shares: `--help`/`-h` prints its usage and exits 0; a failure an
 * operator can act on (bad settings, a database that cannot be opened, a data directory in use) is
 * printed as its one-line message (exit 1; 2 for a data directory in use), anything else as one line with its cause, never a stack (it is
 * printed only with LOG_LEVEL=debug). Returns the exit code.
 */
export async function runCli(
  usage: string,
  argv: string[],
  run: (argv: string[]) => Promise<number>,
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    return 0;
  }
  try {
    return await run(argv);
  } catch (err) {
    // A data directory held by the running service: "busy" (2), like keys:rotate's PORT check.
    if (err instanceof DataDirLockedError) {
      console.error(err.message);
      return 2;
    }
    if (err instanceof ConfigError || err instanceof StartupError) console.error(err.message);
    else {
      console.error(`Failed: ${causeOf(err)}`);
      if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') console.error(err);
    }
    return 1;
  }
}
