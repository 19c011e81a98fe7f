// Reads what deploy/'s systemd unit, Dockerfile and example settings say about starting the service,
// so the tests start it with the shipped command, flags and environment rather than a copy of them
// that could drift from the files an operator installs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../apps/auth/test/support/entry-process.ts';

export const deployDir = join(repoRoot, 'deploy');

export type ServiceUnit = {
  workingDirectory: string;
  /** ExecStart split into words: the binary (an absolute path), then its arguments. */
  execStart: string[];
  /** Every Environment= assignment, in order, `%i` replaced by the instance. */
  environment: Record<string, string>;
  killSignal: string;
};

/** The [Service] section of deploy/systemd/namaa@.service as `systemctl start namaa@<instance>` sees it. */
export function readServiceUnit(instance: string): ServiceUnit {
  const text = readFileSync(join(deployDir, 'systemd/namaa@.service'), 'utf8');
  const section = text.split(/^\[Service\]$/m)[1]?.split(/^\[/m)[0];
  if (!section) throw new Error('namaa@.service has no [Service] section');
  const values = (key: string) =>
    [...section.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) =>
      (m[1] as string).trim().replaceAll('%i', instance),
    );
  const one = (key: string) => {
    const all = values(key);
    if (all.length !== 1) throw new Error(`namaa@.service has ${all.length} ${key}= lines, expected one`);
    return all[0] as string;
  };
  const environment: Record<string, string> = {};
  for (const line of values('Environment')) {
    // systemd allows quoted assignments; the unit uses none, and this reader would split them wrongly.
    if (/["']/.test(line)) throw new Error(`quoted Environment= is not read here: ${line}`);
    for (const word of line.split(/\s+/)) {
      const eq = word.indexOf('=');
      if (eq < 1) throw new Error(`Environment= word without a name: ${word}`);
      environment[word.slice(0, eq)] = word.slice(eq + 1);
    }
  }
  return {
    workingDirectory: one('WorkingDirectory'),
    execStart: one('ExecStart').split(/\s+/),
    environment,
    killSignal: one('KillSignal'),
  };
}

export type Dockerfile = {
  from: string;
  workdir: string;
  run: string[];
  env: Record<string, string>;
  cmd: string[];
  stopSignal: string;
};

/** The instructions of deploy/Dockerfile that decide how the image is built and started. */
export function readDockerfile(): Dockerfile {
  const lines = readFileSync(join(deployDir, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const instr = (name: string) =>
    lines.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim());
  const last = (name: string) => {
    const all = instr(name);
    if (all.length === 0) throw new Error(`Dockerfile has no ${name}`);
    return all.at(-1) as string;
  };
  const env: Record<string, string> = {};
  for (const line of instr('ENV')) {
    if (/["']/.test(line)) throw new Error(`quoted ENV is not read here: ${line}`);
    for (const word of line.split(/\s+/)) {
      const eq = word.indexOf('=');
      if (eq < 1) throw new Error(`ENV word without a name: ${word}`);
      env[word.slice(0, eq)] = word.slice(eq + 1);
    }
  }
  // Exec form only: the shell form would put /bin/sh between Docker's SIGTERM and the server.
  const cmd = JSON.parse(last('CMD')) as string[];
  return {
    from: last('FROM'),
    workdir: last('WORKDIR'),
    run: instr('RUN'),
    env,
    cmd,
    stopSignal: last('STOPSIGNAL'),
  };
}

/** deploy/namaa.env.example as systemd's EnvironmentFile= reads it: KEY=VALUE lines, # comments. */
export function readExampleSettings(): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of readFileSync(join(deployDir, 'namaa.env.example'), 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) settings[m[1] as string] = m[2] as string;
  }
  return settings;
}
