/**
 * CPU time from /proc (Linux), for benchmarks that must tell a cost from this VM's noise: a
 * throughput figure moves with whatever else the host runs, the CPU a request costs much less.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process times in clock ticks of 1/100 s (USER_HZ) on every architecture we run. */
const MS_PER_TICK = 10;

/** utime + stime of one process, in ms; 0 once it has exited. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), counted from field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return 0;
  }
}

/** CPU of every live process named `postgres` (the server's backends and background workers), ms by pid. */
export function postgresCpuByPid(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        out.set(Number(entry), processCpuMs(Number(entry)));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/**
 * The CPU PostgreSQL spent between two readings: each process alive at the end counts what it spent
 * since the first reading (all of it if it started in between). A process that exited in between
 * (an idle pool connection closed, an autovacuum worker) takes its time with it, so this is a floor.
 */
export function postgresCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

/** The machine's CPU counters (ticks): all of them and the time the hypervisor gave to others. */
export function machineTicks(): { total: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] as string;
  const n = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  return { total: n.slice(0, 8).reduce((a, b) => a + b, 0), steal: n[7] ?? 0 };
}
