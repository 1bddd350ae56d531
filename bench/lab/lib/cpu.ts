/**
 * CPU time, to say what a lifecycle costs whoever does the work: the server, its database, the raw-SQL
 * ceiling. Throughput on a shared 2-core machine moves with whatever else runs; the CPU one lifecycle takes
 * moves much less, and it tells the server's own cost from PostgreSQL's. Read from /proc (Linux); elsewhere
 * every figure is 0 and the report says n/a.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process times in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** utime + stime of one process, in seconds; 0 if it cannot be read. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces: fields are counted after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of every PostgreSQL process on this machine (backends, WAL writer, checkpointer), by pid. The
 * bench's database is local (127.0.0.1). Read per process so that a difference is taken per process too: in
 * a sum, a backend that ends between two readings (a pool closing a connection left idle between rounds)
 * would take its whole history off the total, and the load in between would look cheaper than it was.
 */
export function postgresCpuByPid(): Map<number, number> {
  const byPid = new Map<number, number>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return byPid;
  }
  for (const pid of entries) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres')
        byPid.set(Number(pid), cpuSeconds(Number(pid)));
    } catch {
      // It ended while being read.
    }
  }
  return byPid;
}

/**
 * The CPU PostgreSQL used between two readings: each process's growth, a process started in between counted
 * from zero. A process gone by the second reading is left out; what it used in between is not known (a
 * connection closed for idleness used none).
 */
export function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, seconds] of after) used += seconds - (before.get(pid) ?? 0);
  return used;
}

/** What one side used: its own process (the server, or the bench running the ceiling) and PostgreSQL's, if read. */
export interface CpuSplit {
  own: number;
  postgres: number | undefined;
}

/** A reading to take a CpuSplit from: own CPU seconds so far, and PostgreSQL's by process when asked for. */
export interface CpuReading {
  own: number;
  postgres: Map<number, number> | undefined;
}

/** CPU seconds used so far by `pids` (or, with none, by this process), and by PostgreSQL when it is asked for. */
export function cpuNow(pids: number[], postgres: boolean): CpuReading {
  const { user, system } = process.cpuUsage();
  const own = pids.length > 0 ? pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) : (user + system) / 1e6;
  return { own, postgres: postgres ? postgresCpuByPid() : undefined };
}

export const cpuSince = (before: CpuReading, after: CpuReading): CpuSplit => ({
  own: after.own - before.own,
  postgres: after.postgres === undefined ? undefined : postgresCpuBetween(before.postgres ?? new Map(), after.postgres),
});
