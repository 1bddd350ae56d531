/**
 * Load as every bench applies it: a closed loop of N keep-alive clients over one undici pool per target,
 * bounded by time and by count, to 127.0.0.1 only. The same client drives every target of a run, so the
 * client's own cost cancels out of the ratios.
 */
import { readFileSync } from 'node:fs';
import { BalancedPool, Pool } from 'undici';

export const MAX_REQUESTS = 500_000;

export interface Target {
  pool: Pool | BalancedPool;
  prefix: string;
  auth?: string | undefined;
}

/** One server, or several processes of one service (BENCH_PROCESSES), the load spread over them. */
export function target(baseUrl: string | string[], connections: number, auth?: string, prefix = '/2025-10-13'): Target {
  const options = { connections, pipelining: 1 };
  const urls = [baseUrl].flat();
  const pool = urls.length === 1 ? new Pool(urls[0]!, options) : new BalancedPool(urls, options);
  return { pool, prefix, auth };
}

export async function call(t: Target, method: 'GET' | 'POST', path: string, body?: unknown) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await t.pool.request({
    method,
    path: `${t.prefix}${path}`,
    headers: {
      ...(t.auth ? { authorization: t.auth } : {}),
      ...(payload ? { 'content-type': 'application/json' } : {}),
    },
    ...(payload ? { body: payload } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

export interface Result {
  ops: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  seconds: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Closed loop: `concurrency` workers each issue the next operation as soon as the last one answered. */
export async function saturate(op: (i: number) => Promise<boolean>, seconds: number, concurrency: number) {
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && issued < MAX_REQUESTS) {
        const i = issued++;
        const t0 = performance.now();
        if (await op(i)) latencies.push(performance.now() - t0);
        else errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    seconds: elapsed,
  } satisfies Result;
}

/** Median latency (ms) of `count` sequential calls, after one warm-up call. */
export async function medianMs(count: number, op: () => Promise<unknown>): Promise<number> {
  await op();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await op();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return percentile(times, 50);
}

/** The peak resident set of a process so far (VmHWM), in MB; 0 where /proc cannot tell. */
export function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

export const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
export const x = (r: number) => `${r.toFixed(2)}×`;
