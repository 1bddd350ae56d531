// What the MCP tests share: a real local webhook receiver, a tool call that parses the JSON answer, and
// the scenario the issue asks for, driven through a real MCP client of the SDK whatever its transport.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { waitFor } from '../helpers/wait.ts';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 that answers 200 to every POST and keeps what came. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface ToolAnswer {
  isError: boolean;
  text: string;
  json: any;
}

/** Calls a tool and parses its text content (every tool answers JSON, its errors too). */
export async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  const text = content.map((c) => c.text ?? '').join('');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: result.isError === true, text, json };
}

/** The answer of a tool that must succeed. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const answer = await tool(client, name, args);
  assert.equal(answer.isError, false, `${name} failed: ${answer.text}`);
  return answer.json;
}

export const EXPECTED_TOOLS = [
  'create_workspace',
  'sandbox_info',
  'set_webhooks',
  'create_customer',
  'pay_out',
  'create_quote',
  'execute_quote',
  'advance_clock',
  'trigger_event',
  'payment_timeline',
  'ledger_postings',
  'webhook_deliveries',
  'redeliver_webhook',
  'request_log',
  'add_fault',
  'list_faults',
  'remove_fault',
  'snapshot',
  'list_snapshots',
  'restore_snapshot',
  'reset_sandbox',
];

/** The tool list holds every tool, each with an object input schema; the two resources are listed. */
export async function checkListings(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of EXPECTED_TOOLS) assert.ok(names.includes(name), `${name} is listed: ${names.join(', ')}`);
  for (const t of tools) assert.equal(t.inputSchema.type, 'object', `${t.name} takes an object`);
  const { resources } = await client.listResources();
  const uris = resources.map((r) => r.uri).sort();
  assert.deepEqual(uris, ['payouts://openapi.json', 'payouts://sandbox/tables.json']);
  const openapi = await client.readResource({ uri: 'payouts://openapi.json' });
  const document = JSON.parse((openapi.contents[0] as { text: string }).text);
  assert.ok(document.paths['/sandbox/transactions/{transactionId}/postings'], 'the served document, with postings');
  const tables = await client.readResource({ uri: 'payouts://sandbox/tables.json' });
  const parsed = JSON.parse((tables.contents[0] as { text: string }).text);
  const names003 = parsed.outcomes['transfer-out'].find((row: { suffix: string }) => row.suffix === '003');
  assert.equal(names003.name, 'fails: INVALID_BANK_ACCOUNT');
}

/**
 * A payout to an account chosen to fail with INVALID_BANK_ACCOUNT, followed to its webhook at a real
 * receiver; its timeline, postings and deliveries (the exact request received); then a snapshot, a reset
 * that empties the sandbox, and a restore that brings the payment back.
 */
export async function driveFailedPayout(client: Client, receiver: Receiver): Promise<void> {
  await ok(client, 'set_webhooks', { webhookUrl: receiver.url, webhookEnvelope: 'CURRENT' });
  const customer = await ok(client, 'create_customer', { outcome: 'fails: INVALID_BANK_ACCOUNT', fund: 50_000 });
  assert.equal(customer.outcome.suffix, '003');
  assert.ok(customer.accountNumber.endsWith('003'), `the account number picks 003: ${customer.accountNumber}`);
  const payout = await ok(client, 'pay_out', {
    sourceAccountId: customer.internalAccountId,
    destinationAccountId: customer.externalAccountId,
    amount: 1234,
  });
  const failed = () =>
    receiver.received.find((r) => {
      const body = JSON.parse(r.body || '{}');
      return body.type === 'OUTGOING_PAYMENT.FAILED' && body.data?.id === payout.id;
    });
  await waitFor(() => failed() !== undefined, 'the OUTGOING_PAYMENT.FAILED webhook at the receiver');
  const webhook = JSON.parse(failed()?.body ?? '{}');
  assert.equal(webhook.data.failureReason, 'INVALID_BANK_ACCOUNT');

  const { timeline, transaction } = await ok(client, 'payment_timeline', { transactionId: payout.id });
  assert.equal(transaction.status, 'FAILED');
  const steps = timeline.map((t: { step: string }) => t.step);
  assert.equal(steps[0], 'CREATED');
  assert.ok(steps.includes('OUTGOING_PAYMENT.FAILED'), `the timeline: ${steps.join(', ')}`);

  const postings = await ok(client, 'ledger_postings', { transactionId: payout.id });
  assert.ok(postings.data.length >= 2, 'the debit and its refund are posted');
  const sum = postings.data.reduce((total: number, p: { amount: number }) => total + p.amount, 0);
  assert.equal(sum, 0, 'the postings of a payment sum to zero');

  await checkDeliveries(client, payout.id, webhook.id, failed()?.body ?? '');
  await snapshotResetRestore(client, payout.id);
}

/** The delivery the receiver got is the one the tool shows, byte for byte, with the signature headers. */
async function checkDeliveries(client: Client, transactionId: string, eventId: string, body: string) {
  const { events } = await ok(client, 'webhook_deliveries', { transactionId });
  const event = events.find((e: { id: string }) => e.id === eventId);
  assert.ok(event, `the FAILED event ${eventId} is among the payment's events`);
  await waitFor(async () => {
    const one = await ok(client, 'webhook_deliveries', { eventId });
    return one.deliveryState === 'DELIVERED';
  }, 'the delivery recorded as DELIVERED');
  const delivered = await ok(client, 'webhook_deliveries', { eventId });
  const attempt = delivered.attempts.at(-1);
  assert.equal(attempt.requestBody, body, 'the exact body sent');
  assert.equal(attempt.responseStatus, 200);
  assert.ok(
    Object.keys(attempt.requestHeaders).some((h) => /signature/i.test(h)),
    'the signature headers sent',
  );
  const again = await ok(client, 'redeliver_webhook', { eventId });
  assert.equal(again.id, eventId);
}

async function snapshotResetRestore(client: Client, transactionId: string) {
  const snapshot = await ok(client, 'snapshot', { name: 'after the failed payout' });
  await ok(client, 'reset_sandbox');
  const gone = await tool(client, 'payment_timeline', { transactionId });
  assert.equal(gone.isError, true, 'after the reset the payment is gone');
  assert.equal(gone.json.status, 404, `the API's 404: ${gone.text}`);
  await ok(client, 'restore_snapshot', { snapshotId: snapshot.id });
  const back = await ok(client, 'payment_timeline', { transactionId });
  assert.equal(back.transaction.status, 'FAILED', 'restored as it was');
}

/** Bad input is refused by the tool's schema, naming the field; a name no table has is refused with the list. */
export async function checkRefusals(client: Client): Promise<void> {
  const bad = await tool(client, 'pay_out', { sourceAccountId: 'x', destinationAccountId: 'y', amount: -5 });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /amount/, `the field is named: ${bad.text}`);
  const unknown = await tool(client, 'create_customer', { outcome: 'explodes' });
  assert.equal(unknown.isError, true);
  assert.equal(unknown.json.details.field, 'outcome');
  assert.ok(unknown.json.details.allowedValues.includes('fails: INVALID_BANK_ACCOUNT'), unknown.text);
  const refused = await tool(client, 'pay_out', { sourceAccountId: 'x', destinationAccountId: 'y', amount: 5 });
  assert.equal(refused.isError, true, 'the API refuses unknown accounts');
  assert.ok(refused.json.status >= 400 && refused.json.status < 500, refused.text);
  assert.equal(typeof refused.json.code, 'string', `the API's error body: ${refused.text}`);
}

/**
 * Fault rules through the tools: an error answer reaches the tool as the API's error body and shows in the
 * request log with its rule; a dropped connection is a tool error; a trigger then works; the rules go.
 */
export async function checkFaultsAndLog(client: Client): Promise<void> {
  const rule = await ok(client, 'add_fault', {
    route: '/customers',
    method: 'POST',
    answer: { status: 503 },
    times: 1,
  });
  const faulted = await tool(client, 'create_customer', {});
  assert.equal(faulted.isError, true);
  assert.equal(faulted.json.status, 503, faulted.text);
  assert.equal(faulted.json.details.reason, 'SANDBOX_FAULT');
  const log = await ok(client, 'request_log', { status: '5xx' });
  assert.ok(
    log.data.some(
      (entry: { faultId: string; path: string }) => entry.faultId === rule.id && entry.path === '/customers',
    ),
    `the request log shows the faulted request: ${JSON.stringify(log.data)}`,
  );
  await ok(client, 'add_fault', { route: '/sandbox/trigger', drop: true, times: 1 });
  assert.equal((await ok(client, 'list_faults')).data.length, 2, 'both rules are listed');
  const dropped = await tool(client, 'trigger_event', { event: 'TEST' });
  assert.equal(dropped.isError, true);
  assert.equal(dropped.json.code, 'NO_ANSWER', dropped.text);
  const triggered = await ok(client, 'trigger_event', { event: 'OUTGOING_PAYMENT.COMPLETED' });
  assert.match(triggered.eventId, /^Webhook:/);
  const cleared = await ok(client, 'remove_fault', { all: true });
  assert.equal(typeof cleared.deleted, 'number');
  assert.deepEqual((await ok(client, 'list_faults')).data, []);
}
