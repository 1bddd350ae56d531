// The Sandbox screen's first tab: the clock, funding an internal account, and the suffix table as one-click
// scenarios.
// A scenario runs the real flow (an external account whose number ends in the suffix, a transfer out of
// the platform's account) and then lets the worker run what is due, so its outcome shows at once.
import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { CURRENCIES } from '../../domain/currencies.ts';
import type { Services } from '../../services/index.ts';
import type { Principal } from '../../services/tokens.ts';
import { MAX_SANDBOX_FUND } from '../../services/internal-accounts.ts';
import { MAX_ADVANCE_MS } from '../../services/sandbox-clock.ts';
import { QUOTE_OUTCOMES, TRANSFER_OUTCOMES, type Outcome } from '../../services/transfers.ts';
import { choice, fieldsOf, integer, minorUnits, requiredText } from '../form.ts';
import { done, need, type Screens } from '../render.ts';
import { sandboxOnly, sandboxPage } from './sandbox-tabs.ts';

const hide = { schema: { hide: true } };

/** Scenario amounts: 25.00 USD, funded into the platform's account first so every scenario can run. */
const SCENARIO_AMOUNT = 2500;
const USD_DECIMALS = CURRENCIES.get('USD')?.decimals ?? 2;

export interface Scenario {
  /** A same-currency transfer out, or a USD → MXN quote executed from the platform's account. */
  kind: 'transfer' | 'quote';
  suffix: string;
  title: string;
  expect: string;
}

function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'FAIL':
      return outcome.refund === 'FAILED'
        ? `fails at once (${outcome.reason}) and so does its refund: the amount stays in flight for an operator`
        : `fails at once (${outcome.reason}); the amount is refunded`;
    case 'FAIL_AFTER':
      return `stays PROCESSING, then fails after ${outcome.delayMs / 1000} s (advance the clock); refunded`;
    case 'COMPLETE_AFTER':
      return `completes after ${outcome.delayMs / 1000} s (advance the clock)`;
    case 'COMPLETE_THEN_RETURN':
      return `completes, then is returned after ${outcome.returnAfterMs / 1000} s (advance the clock)`;
    default:
      return 'completes';
  }
}

const KINDS = ['transfer', 'quote'] as const;

export const SCENARIOS: readonly Scenario[] = [
  { kind: 'transfer', suffix: '000', title: 'Payout that succeeds', expect: 'completes' },
  ...Object.entries(TRANSFER_OUTCOMES).map(([suffix, outcome]) => ({
    kind: 'transfer' as const,
    suffix,
    title: `Payout to a US account ending ${suffix}`,
    expect: describeOutcome(outcome),
  })),
  { kind: 'quote', suffix: '000', title: 'USD → MXN quote that succeeds', expect: 'completes' },
  ...Object.entries(QUOTE_OUTCOMES).map(([suffix, outcome]) => ({
    kind: 'quote' as const,
    suffix,
    title: `USD → MXN quote to a CLABE ending ${suffix}`,
    expect: describeOutcome(outcome),
  })),
];

/** A platform-owned bank account whose number ends in `suffix`: a US account, or a Mexican CLABE. */
function bankAccount(kind: Scenario['kind'], suffix: string) {
  const beneficiary = {
    beneficiaryType: 'INDIVIDUAL',
    fullName: 'Sandbox Payee',
    birthDate: '1990-01-15',
    nationality: 'US',
  };
  if (kind === 'quote')
    return {
      currency: 'MXN',
      accountInfo: {
        accountType: 'CLABE',
        clabeNumber: `032180${randomInt(100_000_000, 1_000_000_000)}${suffix}`,
        bankName: 'Banco Sandbox',
        beneficiary,
      },
    };
  return {
    currency: 'USD',
    accountInfo: {
      accountType: 'US_ACCOUNT',
      accountNumber: `${randomInt(1_000_000, 10_000_000)}${suffix}`,
      routingNumber: '021000021',
      accountCategory: 'CHECKING',
      bankName: 'Sandbox Bank',
      beneficiary,
    },
  };
}

/**
 * One scenario's real flow: fund, a new bank account ending in the suffix, the payment, the due jobs.
 * `amount` (USD cents) is the scenario's own unless the payout form chose one.
 */
async function runScenario(
  services: Services,
  scope: Principal,
  scenario: Scenario,
  amount = SCENARIO_AMOUNT,
): Promise<string> {
  const { internalAccounts, externalAccounts, transfers, quotes, sandboxClock } = services;
  const [source] = await internalAccounts.listPlatformAccounts(scope, { currency: 'USD' });
  if (!source) throw new AppError('CONFLICT', 'This platform has no USD account; add USD to its currencies first');
  await internalAccounts.fundSandbox(scope, source.id, amount);
  const account = bankAccount(scenario.kind, scenario.suffix) as Parameters<typeof externalAccounts.create>[1];
  const destination = await externalAccounts.create(scope, account);
  let transactionId: string;
  if (scenario.kind === 'quote') {
    const quote = await quotes.create(scope, {
      source: { sourceType: 'ACCOUNT', accountId: source.id },
      destination: { destinationType: 'ACCOUNT', accountId: destination.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: amount,
      description: `Dashboard scenario: CLABE ending ${scenario.suffix}`,
    } as Parameters<typeof quotes.create>[1]);
    const executed = await quotes.execute(scope, quote.id);
    if (!executed.transactionId) throw new Error(`quote ${quote.id} executed without a transaction`);
    transactionId = executed.transactionId;
  } else {
    const tx = await transfers.transferOut(scope, {
      source: { accountId: source.id },
      destination: { accountId: destination.id },
      amount,
      description: `Dashboard scenario: account ending ${scenario.suffix}`,
    });
    transactionId = tx.id;
  }
  await sandboxClock.runDue(scope);
  await checkSmallLedger(services, scope);
  return transactionId;
}

/** A ledger up to this many entries is checked again after a dashboard payment: tens of milliseconds. */
const RECHECK_ENTRIES = 10_000;

/** The home page shows the check as it is: after its own payment the dashboard brings a small one up to date. */
async function checkSmallLedger(services: Services, scope: Principal): Promise<void> {
  const last = await services.overview.lastLedgerCheck(scope);
  if (!last || last.entries <= RECHECK_ENTRIES) await services.overview.checkLedgerNow(scope);
}

export function sandboxScreens(app: FastifyInstance, { services, page }: Screens): void {
  const { sandboxClock, internalAccounts } = services;
  const show = sandboxPage(page);

  app.get('/sandbox', hide, async (req, reply) => {
    need(req, 'VIEW');
    sandboxOnly(req);
    const [clock, accounts] = await Promise.all([
      sandboxClock.get(req.principal),
      internalAccounts.listPlatformAccounts(req.principal, {}),
    ]);
    return show(req, reply, 'overview', 'sandbox', { clock, accounts, scenarios: SCENARIOS });
  });

  app.post('/sandbox/clock/advance', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const seconds = integer(fieldsOf(req.body), 'seconds', 1, MAX_ADVANCE_MS / 1000);
    const clock = await sandboxClock.advance(req.principal, seconds * 1000);
    return done(
      req,
      reply,
      '/dashboard/sandbox',
      `The sandbox clock moved ${seconds} s forward; it is now ${clock.now}.`,
    );
  });

  app.post('/sandbox/fund', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const form = fieldsOf(req.body);
    const accountId = requiredText(form, 'accountId', 200);
    const account = await internalAccounts.get(req.principal, accountId);
    const code = account.balance.currency.code;
    const decimals = CURRENCIES.get(code)?.decimals ?? 0;
    const amount = minorUnits(form, 'amount', decimals, MAX_SANDBOX_FUND);
    await internalAccounts.fundSandbox(req.principal, accountId, amount);
    return done(req, reply, '/dashboard/sandbox', `Funded ${accountId}.`);
  });
  scenarioActions(app, services);
}

/** The buttons that run a payment: a scenario from the tables, or a payout of an amount the form names. */
function scenarioActions(app: FastifyInstance, services: Services): void {
  app.post('/sandbox/scenarios', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const scope = req.principal;
    const form = fieldsOf(req.body);
    const kind = choice(form, 'kind', KINDS) ?? 'transfer';
    const suffixes = SCENARIOS.filter((s) => s.kind === kind).map((s) => s.suffix);
    const suffix = choice(form, 'suffix', suffixes, true);
    const scenario = SCENARIOS.find((s) => s.kind === kind && s.suffix === suffix);
    if (!scenario) throw new AppError('INVALID_INPUT', 'No such scenario', { field: 'suffix' });
    const txId = await runScenario(services, scope, scenario);
    return done(
      req,
      reply,
      `/dashboard/transactions/${encodeURIComponent(txId)}`,
      `Scenario ${kind} ${scenario.suffix} ran: ${txId}.`,
    );
  });

  // A payout of the amount the form names, with the outcome its suffix picks: a scenario of one's own.
  app.post('/sandbox/payouts', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const form = fieldsOf(req.body);
    const transfers = SCENARIOS.filter((s) => s.kind === 'transfer');
    const suffix = choice(
      form,
      'suffix',
      transfers.map((s) => s.suffix),
      true,
    );
    const scenario = transfers.find((s) => s.suffix === suffix) as Scenario;
    const amount = minorUnits(form, 'amount', USD_DECIMALS, MAX_SANDBOX_FUND);
    const txId = await runScenario(services, req.principal, scenario, amount);
    return done(req, reply, `/dashboard/transactions/${encodeURIComponent(txId)}`, `Payout sent: ${txId}.`);
  });
}
