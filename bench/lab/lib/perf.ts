// Linux perf around a phase of load on a server started with --perf-basic-prof: on-CPU samples of all its
// threads, kernel included, read back by area of the service (perf-samples.ts).
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { samplesByArea, type AreaCpu } from './perf-samples.ts';

/** Samples a second per thread: 997, not 1000, so that sampling does not beat in step with timers. */
const HZ = 997;

export function perfAvailable(): boolean {
  return spawnSync('perf', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface PerfRecording {
  /** Stops recording and answers the samples by area. */
  stop(): Promise<Map<string, AreaCpu>>;
}

/** Starts `perf record` on every thread of `pid`, writing to `file`. */
export async function recordPerf(pid: number, file: string): Promise<PerfRecording> {
  const perf = spawn('perf', ['record', '-F', String(HZ), '-g', '-p', String(pid), '-o', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  perf.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<boolean>((resolve) =>
    perf.on('exit', (code, signal) => resolve(code === 0 || signal === 'SIGINT')),
  );
  // perf has attached once it has opened its output file; a short wait covers that on any machine.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {
    async stop() {
      perf.kill('SIGINT');
      if (!(await exited)) throw new Error(`perf record failed: ${stderr}`);
      const script = spawnSync('perf', ['script', '-F', 'tid,ip,sym,dso', '-i', file], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      if (script.status !== 0) throw new Error(`perf script exited ${script.status}: ${script.stderr}`);
      rmSync(file, { force: true });
      return samplesByArea(script.stdout, pid);
    },
  };
}

/** Removes the JIT's symbol map a server started with --perf-basic-prof wrote for perf, once it has stopped. */
export function removePerfMap(pid: number): void {
  rmSync(`/tmp/perf-${pid}.map`, { force: true });
}

/** Microseconds of CPU per lifecycle by area, and how much of each was in the kernel. */
export function printPerfAreas(title: string, areas: Map<string, AreaCpu>, lifecycles: number): void {
  const us = (samples: number) => ((samples / HZ / Math.max(1, lifecycles)) * 1e6).toFixed(0);
  const total = [...areas.values()].reduce((sum, a) => sum + a.samples, 0);
  console.log(`\n${title}: ${us(total)} µs of CPU per lifecycle (perf, on-CPU, all threads; ${lifecycles} lifecycles)`);
  console.log('  | area | µs per lifecycle | of which in the kernel | share |');
  console.log('  |---|--:|--:|--:|');
  for (const [area, a] of [...areas].sort((x, y) => y[1].samples - x[1].samples))
    console.log(`  | ${area} | ${us(a.samples)} | ${us(a.kernel)} | ${((100 * a.samples) / total).toFixed(1)} % |`);
}
