// The reference adapter (examples/http-adapter/server.mjs) as a platform would run it: a real process, called
// with signed requests, calling back a small HTTP server here that stands in for the service's
// /connectors/{name}/events and checks every signature with its own verify function. Its answers and
// callbacks are checked against the contract (src/rails/http/adapter-contract.ts). No database: the same on
// both engines.
import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ADAPTER_CONTRACT } from '../../src/rails/http/adapter-contract.ts';
import { after, before, describe, it } from '../helpers/node-test.ts';
import { freePort, runCommand, runScript, spawnDaemon, type Daemon } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait.ts';

type Node = Record<string, any>;
const SERVER = fileURLToPath(new URL('../../examples/http-adapter/server.mjs', import.meta.url));
const KEY = randomBytes(32);
const SECRET = `whsec_${KEY.toString('base64')}`;
const SETTLE_AFTER_MS = 100;

// ---- Signing, written here from the protocol rather than taken from the adapter ----------------------------
const hmac = (key: Buffer, id: string, ts: string, body: string) =>
  createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');

function signed(body: string, { key = KEY, ts = Math.floor(Date.now() / 1000) } = {}): Record<string, string> {
  const id = `msg_${randomUUID()}`;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': `v1,${hmac(key, id, String(ts), body)}`,
  };
}

/** Whether a callback carries a fresh, valid v1 signature by the connector secret. */
function verify(headers: IncomingHttpHeaders, body: string): boolean {
  const [id, ts, signatures] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => headers[h]);
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof signatures !== 'string') return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const expected = Buffer.from(`v1,${hmac(KEY, id, ts, body)}`);
  return signatures
    .split(' ')
    .some((s) => Buffer.from(s).length === expected.length && timingSafeEqual(Buffer.from(s), expected));
}

// ---- The contract's schemas --------------------------------------------------------------------------------
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...structuredClone(ADAPTER_CONTRACT), $id: 'contract.json' });
function conforms(schema: string, value: unknown): void {
  const validate = ajv.compile({ $ref: `contract.json#/components/schemas/${schema}` });
  assert.ok(validate(value), `${JSON.stringify(value)} is a ${schema}: ${ajv.errorsText(validate.errors)}`);
}

// ---- The service's stand-in --------------------------------------------------------------------------------
interface Callback {
  webhookId: string;
  verified: boolean;
  answered: number;
  event: Node;
}

/** Receives callbacks; `refuse.set(id, n)` answers the next n callbacks about transaction `id` with 503. */
async function startService() {
  const callbacks: Callback[] = [];
  const refuse = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const event = JSON.parse(body) as Node;
      const left = refuse.get(event.id) ?? 0;
      const answered = left > 0 ? 503 : 200;
      refuse.set(event.id, left - 1);
      const webhookId = String(req.headers['webhook-id']);
      callbacks.push({ webhookId, verified: verify(req.headers, body), answered, event });
      res.writeHead(answered, { 'content-type': 'application/json' }).end('{"received":true,"applied":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const about = (id: string) => callbacks.filter((c) => c.event.id === id);
  return { url, callbacks, about, refuse, close: () => new Promise((resolve) => server.close(resolve)) };
}
type Service = Awaited<ReturnType<typeof startService>>;

// ---- The adapter -------------------------------------------------------------------------------------------
interface Adapter {
  url: string;
  daemon: Daemon;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
}
interface Answer {
  status: number;
  body: Node;
}

async function startAdapter(service: Service, extra: Record<string, string> = {}): Promise<Adapter> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const vars = { PORT: String(port), CONNECTOR_SECRET: SECRET, SERVICE_URL: service.url, CONNECTOR_NAME: 'acme' };
  const assignments = Object.entries({ ...vars, SETTLE_AFTER_MS: String(SETTLE_AFTER_MS), ...extra });
  const daemon = await spawnDaemon(
    'env',
    [...assignments.map(([k, v]) => `${k}=${v}`), process.execPath, SERVER],
    async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200,
    'the reference adapter',
  );
  const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...signed(raw), ...headers },
      ...(method === 'GET' ? {} : { body: raw }),
    });
    return { status: res.status, body: (await res.json()) as Node };
  };
  return { url, daemon, call };
}

function instruction(accountNumber: string, overrides: Node = {}): Node {
  const id = `Transaction:${randomUUID()}`;
  const accountInfo = { accountNumber, routingNumber: '021000021', beneficiary: { fullName: 'Ada L.' } };
  const createdAt = new Date().toISOString();
  return {
    id,
    direction: 'PAYOUT',
    amount: 12345,
    currency: 'USD',
    createdAt,
    account: { id: `ExternalAccount:${randomUUID()}`, accountType: 'USD_ACCOUNT', accountInfo },
    ...overrides,
  };
}

const submit = (adapter: Adapter, payout: Node) =>
  adapter.call('POST', '/payouts', payout, { 'idempotency-key': String(payout.id) });
const pathOf = (payout: Node) => `/payouts/${encodeURIComponent(String(payout.id))}`;
const statuses = (service: Service, payout: Node) => service.about(String(payout.id)).map((c) => c.event.status);
const listed = async (adapter: Adapter) => (await adapter.call('GET', '/payouts')).body.payouts as Node[];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the reference adapter', () => {
  let service: Service;
  let adapter: Adapter;
  before(async () => {
    service = await startService();
    adapter = await startAdapter(service);
  });
  after(async () => {
    await adapter.daemon.stop();
    await service.close();
  });

  it('answers /healthz unsigned and says where it listens', async () => {
    assert.equal((await fetch(`${adapter.url}/healthz`)).status, 200, '/healthz needs no signature');
    assert.match(adapter.daemon.output(), new RegExp(`^adapter listening on ${adapter.url}$`, 'm'), 'its one line');
  });

  it('on PORT=0 takes any free port and prints the one line that says which', async () => {
    const vars = { PORT: '0', CONNECTOR_SECRET: SECRET, SERVICE_URL: service.url, CONNECTOR_NAME: 'acme' };
    const script = [
      `node ${SERVER} > "$OUT" 2>&1 &`,
      'for i in $(seq 200); do grep -q listening "$OUT" && break; sleep 0.05; done',
      'curl -sf "$(grep -o "http://[0-9.:]*" "$OUT")/healthz" > /dev/null; status=$?',
      'kill $!; cat "$OUT"; exit $status',
    ].join('\n');
    const OUT = join(tempDir('adapter-port'), 'out');
    const ran = await runScript(script, { env: { ...process.env, ...vars, OUT }, label: 'the adapter on PORT=0' });
    assert.equal(ran.code, 0, `it answered where it said it listens\n${ran.stdout}${ran.stderr}`);
    assert.match(ran.stdout, /^adapter listening on http:\/\/127\.0\.0\.1:[1-9][0-9]*\n$/, 'one line, with the port');
  });

  it('refuses to start without its secret, the service URL or its connector name', async () => {
    const { CONNECTOR_SECRET: _, ...rest } = process.env;
    const env = { ...rest, SERVICE_URL: service.url, CONNECTOR_NAME: 'acme', PORT: '0' };
    const ran = await runCommand(process.execPath, [SERVER], { env, timeoutMs: 20_000 });
    assert.equal(ran.code, 2, `exits 2\n${ran.stderr}`);
    assert.match(ran.stderr, /CONNECTOR_SECRET/, 'and says what to set');
  });

  it('refuses unsigned, forged, stale and tampered requests with 401', async () => {
    const payout = instruction('123456789000');
    const raw = JSON.stringify(payout);
    const post = (headers: Record<string, string>, body = raw) =>
      fetch(`${adapter.url}/payouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const now = Math.floor(Date.now() / 1000);
    const refused = {
      unsigned: await post({}),
      forged: await post(signed(raw, { key: randomBytes(32) })),
      stale: await post(signed(raw, { ts: now - 400 })),
      'from the future': await post(signed(raw, { ts: now + 400 })),
      tampered: await post(signed(raw), raw.replace('12345', '99999')),
      'an unsigned GET': await fetch(`${adapter.url}${pathOf(payout)}`),
      'an unsigned list': await fetch(`${adapter.url}/payouts`),
    };
    for (const [what, res] of Object.entries(refused)) {
      assert.equal(res.status, 401, `${what} is refused`);
      const body = (await res.json()) as Node;
      assert.equal(body.code, 'UNAUTHORIZED', `${what}: the error shape`);
      conforms('Error', body);
    }
    assert.equal((await adapter.call('GET', pathOf(payout))).status, 404, 'none of them was recorded');
    const good = signed(raw);
    const rotated = `v1,${hmac(randomBytes(32), good['webhook-id'] ?? '', good['webhook-timestamp'] ?? '', raw)}`;
    const several = await post({ ...good, 'webhook-signature': `${rotated} ${good['webhook-signature']}` });
    assert.equal(several.status, 200, 'one valid signature among several suffices');
  });

  it('records a payout once, however often the same id is submitted', async () => {
    const payout = instruction('123456789006'); // stays PENDING: nothing settles under the test
    const answers = [await submit(adapter, payout), await submit(adapter, payout), await submit(adapter, payout)];
    for (const answer of answers) {
      assert.equal(answer.status, 200, 'each submission is answered');
      assert.equal(answer.body.status, 'PENDING', 'with the payout state');
      assert.equal(answer.body.railReference, answers[0]?.body.railReference, 'the same payout each time');
      conforms('PayoutState', answer.body);
    }
    const mine = (await listed(adapter)).filter((p) => p.id === payout.id);
    assert.deepEqual(
      mine.map((p) => p.received),
      [3],
      'one payout at the rail, received three times',
    );
    const conflict = await adapter.call('POST', '/payouts', payout, { 'idempotency-key': 'Transaction:other' });
    assert.equal(conflict.status, 409, 'an idempotency-key that differs from the id is a conflict');
  });

  it('refuses a bad amount or a missing field with 400 INVALID_INPUT, and records nothing', async () => {
    const bad = [
      instruction('123456789000', { amount: 12.5 }),
      instruction('123456789000', { amount: 0 }),
      instruction('123456789000', { amount: '100' }),
      instruction('123456789000', { currency: undefined }),
      instruction('123456789000', { account: undefined }),
    ];
    for (const payout of bad) {
      const answer = await submit(adapter, payout);
      assert.equal(answer.status, 400, `${JSON.stringify(payout)} is refused`);
      assert.equal(answer.body.code, 'INVALID_INPUT', 'the error shape');
      conforms('Error', answer.body);
      assert.equal((await adapter.call('GET', pathOf(payout))).status, 404, 'and not recorded');
    }
  });

  it('settles by the account number and calls back, signed: …000, …002, …003 (IBAN), …005', async () => {
    const completes = instruction('123456789000');
    const short = instruction('123456789002');
    const invalid = instruction('', {
      account: { id: 'ExternalAccount:1', accountType: 'EUR_ACCOUNT', accountInfo: {} },
    });
    invalid.account.accountInfo.iban = 'DE89370400440532013003';
    const returned = instruction('123456789005');
    for (const payout of [completes, short, invalid, returned])
      assert.equal((await submit(adapter, payout)).body.status, 'PENDING', 'taken, settled later');
    await waitFor(() => statuses(service, returned).length === 2, 'the return of …005');
    await waitFor(() => [completes, short, invalid].every((p) => statuses(service, p).length === 1), 'the others');
    assert.deepEqual(statuses(service, completes), ['COMPLETED'], '…000 completes');
    assert.deepEqual(statuses(service, returned), ['COMPLETED', 'RETURNED'], '…005 completes, then comes back');
    const reasons = [short, invalid, returned].map((p) => service.about(String(p.id)).at(-1)?.event.failureReason);
    assert.deepEqual(reasons, ['INSUFFICIENT_BALANCE', 'INVALID_BANK_ACCOUNT', 'PAYOUT_RETURNED'], 'the reasons');
    const mine = [completes, short, invalid, returned].flatMap((p) => service.about(String(p.id)));
    for (const callback of mine) {
      assert.ok(callback.verified, `${callback.webhookId} is signed with the connector secret`);
      conforms('RailEvent', callback.event);
    }
    assert.equal(new Set(mine.map((c) => c.webhookId)).size, mine.length, 'each event has a webhook-id of its own');
    const read = await adapter.call('GET', pathOf(returned));
    assert.deepEqual(read.body.status, 'FAILED', 'a returned payout reads FAILED (the answers know three states)');
    assert.equal((await adapter.call('GET', pathOf(completes))).body.status, 'COMPLETED', '…000 reads COMPLETED');
  });

  it('keeps …006 pending until cancelled; a settled payout cannot be cancelled', async () => {
    const pending = instruction('123456789006');
    const completes = instruction('123456789000');
    await submit(adapter, pending);
    await submit(adapter, completes);
    await waitFor(() => statuses(service, completes).length === 1, 'the …000 callback');
    await sleep(3 * SETTLE_AFTER_MS);
    assert.equal((await adapter.call('GET', pathOf(pending))).body.status, 'PENDING', '…006 is still pending');
    assert.deepEqual(statuses(service, pending), [], 'and nothing was said about it');
    const cancelled = await adapter.call('POST', `${pathOf(pending)}/cancel`);
    assert.deepEqual([cancelled.status, cancelled.body.status], [200, 'FAILED'], 'cancelled: FAILED');
    assert.equal((await adapter.call('POST', `${pathOf(pending)}/cancel`)).status, 409, 'not twice');
    assert.equal((await adapter.call('POST', `${pathOf(completes)}/cancel`)).status, 409, 'not once completed');
    assert.equal((await adapter.call('GET', '/payouts/Transaction%3Anever')).status, 404, 'an unknown id is 404');
  });

  it('retries a callback the service refuses, with the same webhook-id', async () => {
    const payout = instruction('123456789000');
    service.refuse.set(String(payout.id), 2);
    await submit(adapter, payout);
    await waitFor(() => service.about(String(payout.id)).some((c) => c.answered === 200), 'the callback to get in');
    const tries = service.about(String(payout.id));
    assert.deepEqual(
      tries.map((c) => c.answered),
      [503, 503, 200],
      'two refusals, then taken',
    );
    assert.equal(new Set(tries.map((c) => c.webhookId)).size, 1, 'one webhook-id across the retries');
    assert.ok(
      tries.every((c) => c.verified),
      'each try signed afresh',
    );
  });
});

describe('the reference adapter, down or slow (FAIL_FIRST_N_SUBMITS, DELAY_ANSWER_MS)', () => {
  let service: Service;
  let adapter: Adapter;
  before(async () => {
    service = await startService();
    adapter = await startAdapter(service, { FAIL_FIRST_N_SUBMITS: '2', DELAY_ANSWER_MS: '1500' });
  });
  after(async () => {
    await adapter.daemon.stop();
    await service.close();
  });

  it('answers 503 to the first submissions, then takes the payout once, recorded before the slow answer', async () => {
    const payout = instruction('123456789000');
    const down = [(await submit(adapter, payout)).status, (await submit(adapter, payout)).status];
    assert.deepEqual(down, [503, 503], 'the first two submissions find it down');
    assert.equal((await adapter.call('GET', pathOf(payout))).status, 404, 'and leave nothing behind');
    const answer = submit(adapter, payout);
    await waitFor(async () => (await adapter.call('GET', pathOf(payout))).status === 200, 'the payout to be recorded');
    const started = performance.now();
    assert.equal((await answer).status, 200, 'the third is taken');
    assert.ok(performance.now() - started > 100, 'its answer came after it was recorded, later');
    const mine = (await listed(adapter)).filter((p) => p.id === payout.id);
    assert.deepEqual(
      mine.map((p) => p.received),
      [1],
      'one payout at the rail, received once',
    );
    await waitFor(() => statuses(service, payout).length === 1, 'its callback');
  });
});

describe('the reference adapter with a STATE_FILE', () => {
  let service: Service;
  let adapter: Adapter | undefined;
  const stateFile = join(tempDir('adapter-state'), 'payouts.json');
  before(async () => {
    service = await startService();
  });
  after(async () => {
    await adapter?.daemon.stop();
    await service.close();
  });

  it('keeps its payouts, and the callbacks not yet taken, across a restart', async () => {
    adapter = await startAdapter(service, { STATE_FILE: stateFile });
    const completes = instruction('123456789000');
    const pending = instruction('123456789006');
    const unheard = instruction('123456789002');
    service.refuse.set(String(unheard.id), 1_000); // the service is away for this one's callback
    for (const payout of [completes, pending, unheard]) await submit(adapter, payout);
    await waitFor(() => statuses(service, completes).length === 1, 'the …000 callback');
    await waitFor(() => service.about(String(unheard.id)).length >= 1, 'a refused try for …002');
    const saved = () => (existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as Node).payouts : []);
    const outbox = (payout: Node) => saved().find((p: Node) => p.id === payout.id)?.outbox.length;
    await waitFor(() => outbox(completes) === 0, 'the taken …000 callback to leave the saved outbox');
    const first = await adapter.call('GET', pathOf(pending));
    await adapter.daemon.stop();
    assert.equal(saved().length, 3, 'the state file holds the three payouts');
    assert.equal(outbox(unheard), 1, 'and the callback the service has not taken');

    service.refuse.set(String(unheard.id), 0); // the service is back
    adapter = await startAdapter(service, { STATE_FILE: stateFile });
    const states = Object.fromEntries((await listed(adapter)).map((p) => [p.id, p.status]));
    assert.deepEqual(
      [states[completes.id], states[pending.id], states[unheard.id]],
      ['COMPLETED', 'PENDING', 'FAILED'],
      'the states survive the restart',
    );
    const again = await submit(adapter, pending);
    assert.equal(again.body.railReference, first.body.railReference, 'a resubmission finds the same payout');
    assert.equal((await listed(adapter)).find((p) => p.id === pending.id)?.received, 2, 'received twice, one payout');
    await waitFor(() => service.about(String(unheard.id)).some((c) => c.answered === 200), 'the …002 callback, resent');
    assert.equal(new Set(service.about(String(unheard.id)).map((c) => c.webhookId)).size, 1, 'under its webhook-id');
    assert.deepEqual(statuses(service, completes), ['COMPLETED'], 'a callback taken before is not sent again');
  });
});
