// The tools that make and follow payments: a customer ready to pay out (funded, with an external account
// whose outcome is chosen by name), transfer-out, quote and execute, and what a payment left behind: its
// timeline, ledger postings and webhook deliveries with the exact request sent.
import { randomInt, randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { outcomeNamed, outcomesOfSuffix, PAYMENT_KINDS, type NamedOutcome, type PaymentKind } from './outcomes.ts';
import { call, defineTool, query, segment, ToolRefusal, type McpSession } from './session.ts';

const id = z.string().min(1).max(200);
const amount = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('Smallest currency unit (cents)');

/** The outcome a name picks, or the refusal that lists every name this kind of payment knows. */
function chosenOutcome(kind: PaymentKind, name: string): NamedOutcome {
  const picked = outcomeNamed(kind, name);
  if ('found' in picked) return picked.found;
  throw new ToolRefusal(undefined, {
    code: 'INVALID_INPUT',
    message: `unknown outcome "${name}" for a ${kind}; one of: ${picked.known.join('; ')}`,
    details: { field: 'outcome', rule: 'enum', allowedValues: picked.known },
  });
}

interface CustomerArgs {
  outcome: string;
  for: PaymentKind;
  fund: number;
  fullName: string;
  platformCustomerId?: string | undefined;
}

/** POST /customers, its USD account funded, and a USD bank account whose last digits pick the outcome. */
async function createCustomer(session: McpSession, args: CustomerArgs) {
  const outcome = chosenOutcome(args.for, args.outcome);
  const api = session.api();
  const customer = (await call(api, {
    method: 'POST',
    path: '/customers',
    body: {
      customerType: 'INDIVIDUAL',
      platformCustomerId: args.platformCustomerId ?? `mcp-${randomUUID()}`,
      fullName: args.fullName,
      birthDate: '1990-02-28',
      nationality: 'GB',
    },
  })) as { id: string };
  const accounts = (await call(api, {
    method: 'GET',
    path: `/customers/internal-accounts${query({ customerId: customer.id, currency: 'USD' })}`,
  })) as { data: Array<{ id: string }> };
  const internal = accounts.data[0];
  if (!internal) throw new ToolRefusal(undefined, { code: 'NO_ACCOUNT', message: 'the customer has no USD account' });
  const funded =
    args.fund > 0
      ? await call(api, {
          method: 'POST',
          path: `/sandbox/internal-accounts/${segment(internal.id)}/fund`,
          body: { amount: args.fund },
        })
      : internal;
  const accountNumber = `${randomInt(100_000, 1_000_000)}${outcome.suffix}`;
  const external = (await call(api, {
    method: 'POST',
    path: '/customers/external-accounts',
    body: {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber,
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: args.fullName },
      },
    },
  })) as { id: string };
  return {
    customerId: customer.id,
    internalAccountId: internal.id,
    internalAccount: funded,
    externalAccountId: external.id,
    accountNumber,
    outcome: { for: args.for, name: outcome.name, suffix: outcome.suffix, description: outcome.description },
    thisAccountUnderEveryTable: outcomesOfSuffix(outcome.suffix),
  };
}

function customerTool(server: McpServer, session: McpSession): void {
  defineTool(
    server,
    session,
    'create_customer',
    'Create a customer with its USD internal account funded and a USD bank account whose payouts end as ' +
      '`outcome` says: completes, fails: INVALID_BANK_ACCOUNT, returned after completion, takes 6 minutes… ' +
      '(the names of the sandbox tables resource; an unknown name is refused with the list). `for` picks the ' +
      'table: transfer-out (default), transfer-in or quote.',
    {
      outcome: z.string().min(1).max(200).default('completes'),
      for: z.enum(PAYMENT_KINDS).default('transfer-out'),
      fund: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(100_000).describe('Cents; 0: none'),
      fullName: z.string().min(1).max(200).default('Ada Lovelace'),
      platformCustomerId: z.string().min(1).max(200).optional(),
    },
    async (args) => createCustomer(session, args),
  );
}

function paymentTools(server: McpServer, session: McpSession): void {
  defineTool(
    server,
    session,
    'pay_out',
    'Send money from an internal account to an external one (POST /transfer-out). Answers the transaction, ' +
      'PENDING; the worker moves it to its outcome within milliseconds (delayed outcomes: advance_clock).',
    {
      sourceAccountId: id,
      destinationAccountId: id,
      amount,
      description: z.string().max(1000).optional(),
      idempotencyKey: z.string().min(1).max(255).optional(),
    },
    async (args) =>
      call(session.api(), {
        method: 'POST',
        path: '/transfer-out',
        body: {
          source: { accountId: args.sourceAccountId },
          destination: { accountId: args.destinationAccountId },
          amount: args.amount,
          ...(args.description === undefined ? {} : { description: args.description }),
        },
        ...(args.idempotencyKey === undefined ? {} : { idempotencyKey: args.idempotencyKey }),
      }),
  );
  defineTool(
    server,
    session,
    'create_quote',
    'Quote a payment from an internal account to an external account (POST /quotes): locks rate and fees ' +
      'until it expires. execute: true executes it at once.',
    {
      sourceAccountId: id,
      destinationAccountId: id,
      amount,
      lockedCurrencySide: z.enum(['SENDING', 'RECEIVING']).default('SENDING'),
      execute: z.boolean().default(false),
      description: z.string().max(1000).optional(),
    },
    async (args) =>
      call(session.api(), {
        method: 'POST',
        path: '/quotes',
        body: {
          source: { sourceType: 'ACCOUNT', accountId: args.sourceAccountId },
          destination: { destinationType: 'ACCOUNT', accountId: args.destinationAccountId },
          lockedCurrencySide: args.lockedCurrencySide,
          lockedCurrencyAmount: args.amount,
          ...(args.execute ? { immediatelyExecute: true } : {}),
          ...(args.description === undefined ? {} : { description: args.description }),
        },
      }),
  );
  defineTool(
    server,
    session,
    'execute_quote',
    'Execute a quote (POST /quotes/{id}/execute): its outcome runs at once.',
    { quoteId: id },
    async ({ quoteId }) => call(session.api(), { method: 'POST', path: `/quotes/${segment(quoteId)}/execute` }),
  );
}

interface WebhookEvent {
  id: string;
  type: string;
  createdAt: string;
  deliveryState: string;
  attempts?: unknown[];
}

/** Every event of an object, oldest first, each with its attempts (the list leaves them out). */
async function eventsOf(session: McpSession, objectId: string): Promise<WebhookEvent[]> {
  const listed = (await call(session.api(), {
    method: 'GET',
    path: `/webhook-events${query({ objectId, limit: 100 })}`,
  })) as { data: WebhookEvent[] };
  const events = await Promise.all(
    listed.data.map(
      (e) => call(session.api(), { method: 'GET', path: `/webhook-events/${segment(e.id)}` }) as Promise<WebhookEvent>,
    ),
  );
  return events.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

function timelineTools(server: McpServer, session: McpSession): void {
  defineTool(
    server,
    session,
    'payment_timeline',
    'A payment as it is now and every step it took, oldest first: created, then each event with its time ' +
      'and delivery state (GET /transactions/{id}, GET /webhook-events?objectId=).',
    { transactionId: id },
    async ({ transactionId }) => {
      const transaction = (await call(session.api(), {
        method: 'GET',
        path: `/transactions/${segment(transactionId)}`,
      })) as { id: string; status: string; createdAt: string };
      const events = await eventsOf(session, transaction.id);
      const timeline = [
        { at: transaction.createdAt, step: 'CREATED' },
        ...events.map((e) => ({ at: e.createdAt, step: e.type, eventId: e.id, deliveryState: e.deliveryState })),
      ];
      return { transaction, timeline };
    },
  );
  defineTool(
    server,
    session,
    'ledger_postings',
    "A payment's double-entry postings, oldest first (GET /sandbox/transactions/{id}/postings).",
    { transactionId: id },
    async ({ transactionId }) =>
      call(session.api(), { method: 'GET', path: `/sandbox/transactions/${segment(transactionId)}/postings` }),
  );
  defineTool(
    server,
    session,
    'webhook_deliveries',
    'The webhook events of a payment (transactionId) or one event (eventId), each with every delivery ' +
      'attempt: the exact request sent (headers with signatures, body), the answer and its latency.',
    { transactionId: id.optional(), eventId: id.optional() },
    async ({ transactionId, eventId }) => {
      if ((transactionId === undefined) === (eventId === undefined)) {
        throw new ToolRefusal(undefined, {
          code: 'INVALID_INPUT',
          message: 'give exactly one of transactionId or eventId',
          details: { field: 'transactionId' },
        });
      }
      if (eventId !== undefined)
        return call(session.api(), { method: 'GET', path: `/webhook-events/${segment(eventId)}` });
      return { events: await eventsOf(session, transactionId ?? '') };
    },
  );
  defineTool(
    server,
    session,
    'redeliver_webhook',
    'Deliver an event again now, with the same id and a fresh retry window (POST /webhook-events/{id}/redeliver).',
    { eventId: id },
    async ({ eventId }) =>
      call(session.api(), { method: 'POST', path: `/webhook-events/${segment(eventId)}/redeliver` }),
  );
}

export function paymentToolsOf(server: McpServer, session: McpSession): void {
  customerTool(server, session);
  paymentTools(server, session);
  timelineTools(server, session);
}
