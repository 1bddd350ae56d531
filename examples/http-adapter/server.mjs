// A reference adapter for the payouts service's generic HTTP connector (docs/connectors.md). It speaks the
// protocol on both sides and puts a *simulated* rail behind it: copy it, keep the protocol half, and replace
// `settlementPlan` and the timers with calls to your bank. Node 20 built-ins only; run `node server.mjs`.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';

const env = process.env;
const SECRET = env.CONNECTOR_SECRET ?? '';
const SERVICE_URL = (env.SERVICE_URL ?? '').replace(/\/+$/, '');
const CONNECTOR_NAME = env.CONNECTOR_NAME ?? '';
const STATE_FILE = env.STATE_FILE || undefined;
const SETTLE_AFTER_MS = Number(env.SETTLE_AFTER_MS ?? 200);
const DELAY_ANSWER_MS = Number(env.DELAY_ANSWER_MS ?? 0); // test hook: a slow adapter
let submitsToRefuse = Number(env.FAIL_FIRST_N_SUBMITS ?? 0); // test hook: an adapter that is down
if (!SECRET.startsWith('whsec_') || !SERVICE_URL || !CONNECTOR_NAME) {
  console.error('set CONNECTOR_SECRET (whsec_…), SERVICE_URL and CONNECTOR_NAME');
  process.exit(2);
}
const KEY = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
const TOLERANCE_S = 300; // a signed request older or newer than this is refused: a replay, or a wrong clock
const MAX_CALLBACK_TRIES = 10;
const MAX_BODY_BYTES = 1_000_000;

// ---- Signing: Standard Webhooks, HMAC-SHA256 over "<id>.<timestamp>.<raw body>" ----------------------------
const signature = (id, ts, body) => `v1,${createHmac('sha256', KEY).update(`${id}.${ts}.${body}`).digest('base64')}`;

function signedHeaders(id, body) {
  const ts = String(Math.floor(Date.now() / 1000));
  return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature(id, ts, body) };
}

/** Whether a request carries a valid, fresh signature; any one of several space-separated ones suffices. */
function verified(headers, body) {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const given = headers['webhook-signature'];
  if (!id || !/^\d+$/.test(ts ?? '') || !given) return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > TOLERANCE_S) return false;
  const expected = Buffer.from(signature(id, ts, body));
  return given.split(' ').some((candidate) => {
    const bytes = Buffer.from(candidate);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  });
}

// ---- State: every payout by the service's transaction id, saved atomically when STATE_FILE is set ----------
// A payout: { id, instruction, status, railReference, failureReason?, received, steps, outbox }. `steps` are
// the rail's outcomes still to come; `outbox` the callbacks not yet accepted by the service (each keeps its
// webhook-id across retries, so the service can tell a retry from a new event).
const payouts = new Map();
if (STATE_FILE && existsSync(STATE_FILE))
  for (const payout of JSON.parse(readFileSync(STATE_FILE, 'utf8')).payouts) payouts.set(payout.id, payout);

function save() {
  if (!STATE_FILE) return;
  const temp = `${STATE_FILE}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  writeSync(fd, JSON.stringify({ payouts: [...payouts.values()] }));
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, STATE_FILE); // readers see the old file or the new one, never half of one
  const dir = openSync(dirname(STATE_FILE), 'r');
  fsyncSync(dir); // the rename itself survives a power cut
  closeSync(dir);
}

/** What the service reads back: the same shape from POST /payouts, GET /payouts/{id} and cancel. */
const stateOf = ({ status, railReference, failureReason }) =>
  failureReason ? { status, railReference, failureReason } : { status, railReference };

// ---- The simulated rail: replace this part with your bank -------------------------------------------------
/** The last three digits of the account's number (else its IBAN, else any identifier in accountInfo). */
function lastThreeDigits(accountInfo) {
  const { accountNumber, iban } = accountInfo;
  for (const value of [accountNumber, iban, ...Object.values(accountInfo)]) {
    const digits = typeof value === 'string' ? value.replace(/\D/g, '') : '';
    if (digits.length >= 3) return digits.slice(-3);
  }
  return '000';
}

/** The outcomes the rail reports, one per SETTLE_AFTER_MS: the sandbox's test patterns, in small. */
function settlementPlan(instruction) {
  switch (lastThreeDigits(instruction.account.accountInfo)) {
    case '002':
      return [{ status: 'FAILED', failureReason: 'INSUFFICIENT_BALANCE' }];
    case '003':
      return [{ status: 'FAILED', failureReason: 'INVALID_BANK_ACCOUNT' }];
    case '005':
      return [{ status: 'COMPLETED' }, { status: 'RETURNED', failureReason: 'PAYOUT_RETURNED' }];
    case '006':
      return []; // stays PENDING until cancelled
    default:
      return [{ status: 'COMPLETED' }];
  }
}

/** The rail's next outcome arrives: record it, queue its callback, and wait for the one after. */
function scheduleNextStep(payout) {
  if (payout.steps.length === 0) return;
  setTimeout(() => {
    const step = payout.steps.shift();
    if (!step || payout.status === 'FAILED') return; // cancelled meanwhile
    // The answers know three states: money that came back is, from now on, a payout that FAILED.
    payout.status = step.status === 'RETURNED' ? 'FAILED' : step.status;
    if (step.failureReason) payout.failureReason = step.failureReason;
    const event = { id: payout.id, railReference: payout.railReference, ...step, occurredAt: new Date().toISOString() };
    payout.outbox.push({ webhookId: `msg_${randomUUID()}`, event });
    save();
    void deliver(payout);
    scheduleNextStep(payout);
  }, SETTLE_AFTER_MS);
}

// ---- Callbacks to the service: in order per payout, retried with backoff while the service is away ---------
const delivering = new Set();

async function deliver(payout) {
  if (delivering.has(payout.id)) return; // one loop per payout keeps its events in order
  delivering.add(payout.id);
  try {
    while (payout.outbox.length > 0) {
      const [{ webhookId, event }] = payout.outbox;
      if (!(await postEvent(webhookId, event)))
        console.error(`gave up on callback ${webhookId} for ${payout.id}: refused, or no answer in time`);
      payout.outbox.shift();
      save();
    }
  } finally {
    delivering.delete(payout.id);
  }
}

/** POSTs one event until the service takes it (2xx) or refuses it for good (a 4xx retrying cannot fix). */
async function postEvent(webhookId, event) {
  const url = `${SERVICE_URL}/connectors/${encodeURIComponent(CONNECTOR_NAME)}/events`;
  const body = JSON.stringify(event);
  for (let attempt = 1; attempt <= MAX_CALLBACK_TRIES; attempt++) {
    const headers = { 'content-type': 'application/json', ...signedHeaders(webhookId, body) };
    const status = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) }).then(
      (res) => {
        void res.body?.cancel(); // the receipt is not needed; this frees the connection
        return res.status;
      },
      () => 0, // refused, reset or timed out: the service is away
    );
    if (status >= 200 && status < 300) return true;
    if (status >= 400 && status < 500 && ![408, 429].includes(status)) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 5_000)));
  }
  return false;
}

// ---- The endpoints the service calls ----------------------------------------------------------------------
const error = (status, code, message) => ({ status, body: { status, code, message } });

/** Why an instruction cannot be taken, or undefined: checked before anything reaches the rail. */
function invalid(body) {
  if (!body || typeof body !== 'object') return 'the body is not a JSON object';
  for (const field of ['id', 'currency', 'createdAt'])
    if (typeof body[field] !== 'string' || body[field] === '') return `${field} is missing`;
  if (body.direction !== 'PAYOUT' && body.direction !== 'PULL') return 'direction is not PAYOUT or PULL';
  if (!Number.isSafeInteger(body.amount) || body.amount <= 0) return 'amount is not a positive integer';
  const account = body.account;
  if (typeof account?.id !== 'string' || typeof account.accountType !== 'string') return 'account is missing';
  if (!account.accountInfo || typeof account.accountInfo !== 'object') return 'account.accountInfo is missing';
  return undefined;
}

function submit(body, idempotencyKey) {
  if (submitsToRefuse > 0) {
    submitsToRefuse--;
    return error(503, 'UNAVAILABLE', 'the adapter is down (test hook)');
  }
  const why = invalid(body);
  if (why) return error(400, 'INVALID_INPUT', why);
  if (idempotencyKey !== undefined && idempotencyKey !== body.id)
    return error(409, 'CONFLICT', 'idempotency-key differs from the body id');
  const known = payouts.get(body.id);
  if (known) {
    known.received++; // the same instruction again: its current state, and never a second payout
    save();
    return { status: 200, body: stateOf(known) };
  }
  // Where a real adapter hands the instruction to its bank, keyed by body.id so that the bank dedupes too.
  const payout = { id: body.id, instruction: body, status: 'PENDING', railReference: `rail_${randomUUID()}` };
  Object.assign(payout, { received: 1, steps: settlementPlan(body), outbox: [] });
  payouts.set(payout.id, payout);
  save();
  scheduleNextStep(payout);
  return { status: 200, body: stateOf(payout) };
}

function cancel(payout) {
  if (payout.status !== 'PENDING') return error(409, 'CONFLICT', `the payout is ${payout.status}`);
  Object.assign(payout, { status: 'FAILED', steps: [] });
  save();
  return { status: 200, body: stateOf(payout) };
}

/** Routes one verified request to its answer: { status, body }. */
async function route(method, path, body, headers) {
  const match = /^\/payouts\/([^/]+)(\/cancel)?$/.exec(path);
  const payout = match ? payouts.get(decodeURIComponent(match[1])) : undefined;
  if (method === 'POST' && path === '/payouts') {
    const answer = submit(body, headers['idempotency-key']);
    if (DELAY_ANSWER_MS > 0) await new Promise((resolve) => setTimeout(resolve, DELAY_ANSWER_MS));
    return answer;
  }
  if (method === 'GET' && path === '/payouts') {
    const list = [...payouts.values()].map((p) => ({ id: p.id, ...stateOf(p), received: p.received }));
    return { status: 200, body: { payouts: list } };
  }
  if (!match || !(method === (match[2] ? 'POST' : 'GET'))) return error(404, 'NOT_FOUND', 'no such endpoint');
  if (!payout) return error(404, 'NOT_FOUND', 'no payout with this id');
  return match[2] ? cancel(payout) : { status: 200, body: stateOf(payout) };
}

/** Test hook (GET /stats): the signed calls being answered now, and the most there ever were at once. */
const calls = { inFlight: 0, maxInFlight: 0 };

async function handle(req, res) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    if ((size += chunk.length) > MAX_BODY_BYTES) return void res.writeHead(413).end(); // read before verifying
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks).toString('utf8');
  const path = new URL(req.url ?? '/', 'http://adapter').pathname;
  let answer;
  if (req.method === 'GET' && path === '/healthz') answer = { status: 200, body: { ok: true } };
  else if (!verified(req.headers, raw)) answer = error(401, 'UNAUTHORIZED', 'missing, wrong or stale signature');
  else if (req.method === 'GET' && path === '/stats') answer = { status: 200, body: calls };
  else {
    let body;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      answer = error(400, 'INVALID_INPUT', 'the body is not JSON');
    }
    calls.maxInFlight = Math.max(calls.maxInFlight, ++calls.inFlight);
    try {
      answer ??= await route(req.method, path, body, req.headers);
    } finally {
      calls.inFlight--;
    }
  }
  res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
}

const server = createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error(err);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
const HOST = env.HOST ?? '127.0.0.1';
server.listen(Number(env.PORT ?? 9100), HOST, () => {
  console.log(`adapter listening on http://${HOST}:${server.address().port}`);
  // After a restart: what the rail had still to report, and the callbacks the service had not yet taken.
  for (const payout of payouts.values()) {
    scheduleNextStep(payout);
    void deliver(payout);
  }
});
process.on('SIGTERM', () => process.exit(0)); // every change is already on disk
