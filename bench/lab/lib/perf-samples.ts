// perf's on-CPU samples of a loaded server, by area of the service. V8's own CPU profile samples wall time:
// a thread that waits to be scheduled again (after a socket write woke PostgreSQL on a shared core) shows
// there as time in `writev`. perf counts only what ran, in the kernel too, and on every thread.
import { areaOf } from './areas.ts';

export interface AreaCpu {
  /** Samples whose nearest JavaScript frame lies in this area (what it ran, and what it called). */
  samples: number;
  /** Of those, the samples taken in the kernel (system calls: socket writes, reads, fsync). */
  kernel: number;
}

export const OTHER_THREADS = "V8's other threads (garbage collection, compiler)";
export const OUTSIDE_JS = 'event loop outside JavaScript (polling, reads, timers)';
export const GC = 'garbage collection (main thread)';
export const SQLITE = 'SQLite library (its statements, commits)';

/** Code of the service or of a package (not Node's own modules). */
const OWN_CODE = /\/(src|dist|node_modules)\//;
const GC_FRAME = /Scavenge|MarkCompact|Sweeper|Heap::Collect|GCTracer|IncrementalMarking/;

/**
 * Samples of `perf script -F tid,ip,sym,dso` output by area. The server was started with --perf-basic-prof,
 * so its JIT frames are named `JS:<name> <location>`. A sample belongs to the innermost frame of the service's
 * or a package's code, so that a socket write is the driver's or the HTTP server's that asked for it;
 * failing that, to its innermost JavaScript frame (Node's own: promises, timers). A sample of the main
 * thread (`mainTid`) with no JavaScript frame is the event loop's own work or a collection; any other
 * thread's is V8's helpers.
 */
export function samplesByArea(script: string, mainTid: number): Map<string, AreaCpu> {
  const areas = new Map<string, AreaCpu>();
  const add = (area: string, kernel: boolean) => {
    const entry = areas.get(area) ?? { samples: 0, kernel: 0 };
    entry.samples++;
    if (kernel) entry.kernel++;
    areas.set(area, entry);
  };
  for (const block of script.split(/\n\s*\n/)) {
    const [head, ...frames] = block.split('\n').map((line) => line.trim());
    const tid = head?.split(/\s+/)[0];
    if (!tid || !/^\d+$/.test(tid)) continue;
    const kernel = frames[0]?.includes('[kernel.kallsyms]') ?? false;
    if (Number(tid) !== mainTid) {
      add(OTHER_THREADS, kernel);
      continue;
    }
    const js = frames.filter((frame) => frame.includes(' JS:'));
    // SQLite runs inside the JavaScript call that asked it: its own work is counted apart.
    const native = js.length > 0 ? frames.slice(0, frames.indexOf(js[0]!)) : frames;
    if (native.some((frame) => frame.includes('better_sqlite3.node'))) {
      add(SQLITE, kernel);
      continue;
    }
    const owner = js.find((frame) => OWN_CODE.test(frame)) ?? js[0];
    if (owner) add(areaOf(owner), kernel);
    else add(GC_FRAME.test(frames[0] ?? '') ? GC : OUTSIDE_JS, kernel);
  }
  return areas;
}
