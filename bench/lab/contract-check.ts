/**
 * What contract check mode (SANDBOX_CONTRACT_CHECK=true) costs a request: the same sandbox calls over real
 * HTTP against two servers in one process, one with the mode off and one with it on, in alternating rounds
 * (so that the machine's load falls on both alike), as the median time per call and the ratio on/off.
 *
 *   node --import tsx bench/lab/contract-check.ts
 *   BENCH_ROUNDS=20 node --import tsx bench/lab/contract-check.ts
 *
 * The calls: create a customer (a 201 with a body to check), read it, and list the customers (a page of up to
 * 20 of them: the larger body, the larger cost). Every validator is compiled in the warm-up round.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createPlatform } from '../../src/services/platforms.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CALLS_PER_ROUND = 30;

async function server(check: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), 'payouts-bench-contract-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', SANDBOX_CONTRACT_CHECK: String(check) };
  const app = await createApp(loadConfig(env));
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const address = app.http.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/2025-10-13`;
  const { sandbox } = await createPlatform(app.services.ctx, 'bench');
  const authorization = `Basic ${Buffer.from(`${sandbox.tokenId}:${sandbox.clientSecret}`).toString('base64')}`;
  let n = 0;
  const call = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization };
    if (body) headers['content-type'] = 'application/json';
    const answer = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : null });
    const parsed = (await answer.json()) as { id?: string };
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}`);
    return parsed;
  };
  return {
    app,
    /** One round: CALLS_PER_ROUND calls, a third of each kind; milliseconds per call. */
    async round(): Promise<number> {
      const started = performance.now();
      for (let i = 0; i < CALLS_PER_ROUND / 3; i++) {
        const created = await call('POST', '/customers', {
          customerType: 'INDIVIDUAL',
          platformCustomerId: `bench-${check}-${n++}`,
          fullName: 'Ada Lovelace',
        });
        await call('GET', `/customers/${created.id}`);
        await call('GET', '/customers?limit=20');
      }
      return (performance.now() - started) / CALLS_PER_ROUND;
    },
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const off = await server(false);
const on = await server(true);
try {
  await off.round();
  await on.round();
  const times = { off: [] as number[], on: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    times.off.push(await off.round());
    times.on.push(await on.round());
  }
  const [a, b] = [median(times.off), median(times.on)];
  process.stdout.write(
    `contract check off: ${a.toFixed(2)} ms per call; on: ${b.toFixed(2)} ms per call; ` +
      `on/off ${(b / a).toFixed(2)} (median of ${ROUNDS} rounds of ${CALLS_PER_ROUND} calls)\n`,
  );
  if (on.app.services.contractCheck.count() !== 0)
    process.stdout.write(`mismatches found: ${JSON.stringify(on.app.services.contractCheck.recent())}\n`);
} finally {
  await off.close();
  await on.close();
}
