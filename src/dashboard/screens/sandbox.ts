// Sandbox controls: the clock, funding an internal account, and the suffix table as one-click scenarios.
// A scenario runs the real flow (an external account whose number ends in the suffix, a transfer out of
// the platform's account) and then lets the worker run what is due, so its outcome shows at once.
import { randomInt } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { CURRENCIES } from '../../domain/currencies.ts';
import { TRANSFER_OUTCOMES, type Outcome } from '../../rails/sandbox-outcomes.ts';
import type { Services } from '../../services/index.ts';
import type { Principal } from '../../services/tokens.ts';
import { MAX_SANDBOX_FUND } from '../../services/internal-accounts.ts';
import { MAX_ADVANCE_MS } from '../../services/sandbox-clock.ts';
import { choice, fieldsOf, integer, minorUnits, requiredText } from '../form.ts';
import { done, need, type Screens } from '../render.ts';

const hide = { schema: { hide: true } };

/** Scenario amounts: 25.00 USD, funded into the platform's account first so every scenario can run. */
const SCENARIO_AMOUNT = 2500;

export interface Scenario {
  suffix: string;
  title: string;
  expect: string;
}

function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'FAIL':
      return `fails at once (${outcome.reason}); the amount is refunded`;
    case 'FAIL_AFTER':
      return `stays PROCESSING, then fails after ${outcome.delayMs / 1000} s (advance the clock); refunded`;
    case 'COMPLETE_AFTER':
      return `completes after ${outcome.delayMs / 1000} s (advance the clock)`;
    default:
      return 'completes';
  }
}

export const SCENARIOS: readonly Scenario[] = [
  { suffix: '000', title: 'Payout that succeeds', expect: 'completes' },
  ...Object.entries(TRANSFER_OUTCOMES).map(([suffix, outcome]) => ({
    suffix,
    title: `Payout to an account ending ${suffix}`,
    expect: describeOutcome(outcome),
  })),
];

/** One scenario's real flow: fund, a new external account ending in `suffix`, a transfer out, the due jobs. */
async function runScenario(services: Services, scope: Principal, suffix: string) {
  const { internalAccounts, externalAccounts, transfers, worker } = services;
  const [source] = await internalAccounts.listPlatformAccounts(scope, { currency: 'USD' });
  if (!source) throw new AppError('CONFLICT', 'This platform has no USD account; add USD to its currencies first');
  await internalAccounts.fundSandbox(scope, source.id, SCENARIO_AMOUNT);
  const destination = await externalAccounts.create(scope, {
    currency: 'USD',
    accountInfo: {
      accountType: 'US_ACCOUNT',
      accountNumber: `${randomInt(1_000_000, 10_000_000)}${suffix}`,
      routingNumber: '021000021',
      accountCategory: 'CHECKING',
      bankName: 'Sandbox Bank',
      beneficiary: {
        beneficiaryType: 'INDIVIDUAL',
        fullName: 'Sandbox Payee',
        birthDate: '1990-01-15',
        nationality: 'US',
      },
    },
  } as Parameters<typeof externalAccounts.create>[1]);
  const tx = await transfers.transferOut(scope, {
    source: { accountId: source.id },
    destination: { accountId: destination.id },
    amount: SCENARIO_AMOUNT,
    description: `Dashboard scenario: account ending ${suffix}`,
  });
  await worker.drain({ platformId: scope.platformId, environment: scope.environment });
  return tx;
}

function sandboxOnly(req: FastifyRequest): void {
  if (req.principal.environment !== 'sandbox')
    throw new AppError('FORBIDDEN', 'The sandbox screen is for sandbox tokens; this one is for production');
}

export function sandboxScreens(app: FastifyInstance, { services, page }: Screens): void {
  const { sandboxClock, internalAccounts } = services;

  app.get('/sandbox', hide, async (req, reply) => {
    need(req, 'VIEW');
    sandboxOnly(req);
    const [clock, accounts] = await Promise.all([
      sandboxClock.get(req.principal),
      internalAccounts.listPlatformAccounts(req.principal, {}),
    ]);
    return page(req, reply, 'sandbox', { title: 'Sandbox', nav: 'sandbox', clock, accounts, scenarios: SCENARIOS });
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

  app.post('/sandbox/scenarios', hide, async (req, reply) => {
    need(req, 'TRANSACT');
    sandboxOnly(req);
    const scope = req.principal;
    const suffix = choice(
      fieldsOf(req.body),
      'suffix',
      SCENARIOS.map((s) => s.suffix),
      true,
    ) as string;
    const tx = await runScenario(services, scope, suffix);
    return done(
      req,
      reply,
      `/dashboard/transactions/${encodeURIComponent(tx.id)}`,
      `Scenario ${suffix} ran: ${tx.id}.`,
    );
  });
}
