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
 * CPU seconds of every PostgreSQL process on this machine: backends, WAL writer, checkpointer. The bench's
 * database is local (127.0.0.1), and a backend that ends between two readings takes its time with it, so
 * the bench reads this around loads whose connections stay open.
 */
export function postgresCpuSeconds(): number {
  let total = 0;
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of entries) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuSeconds(Number(pid));
    } catch {
      // It ended while being read.
    }
  }
  return total;
}

/** What one side used: its own process (the server, or the bench running the ceiling) and PostgreSQL's, if read. */
export interface CpuSplit {
  own: number;
  postgres: number | undefined;
}

/** CPU seconds used so far by `pids` (or, with none, by this process), and by PostgreSQL when it is asked for. */
export function cpuNow(pids: number[], postgres: boolean): CpuSplit {
  const { user, system } = process.cpuUsage();
  const own = pids.length > 0 ? pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) : (user + system) / 1e6;
  return { own, postgres: postgres ? postgresCpuSeconds() : undefined };
}

export const cpuSince = (before: CpuSplit, after: CpuSplit): CpuSplit => ({
  own: after.own - before.own,
  postgres: after.postgres === undefined ? undefined : after.postgres - (before.postgres ?? 0),
});
