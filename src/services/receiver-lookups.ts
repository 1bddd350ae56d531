import { bindDeps } from './bind.ts';
import type { Static } from '@sinclair/typebox';
import type { AccountReceiverLookup, UmaReceiverLookup } from '../wire/receiver.ts';
import { AppError, invalidInput, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { currency as currencyOf, type Currency } from '../domain/currencies.ts';
import { newId } from '../domain/ids.ts';
import { isUmaAddress } from '../domain/uma.ts';
import {
  LOOKUP_MAX_AMOUNT,
  LOOKUP_MIN_AMOUNT,
  sandboxTestReceiver,
  TEST_RECEIVER_PAYER_DATA,
  type PayerDataField,
  type SandboxReceiverBehaviour,
} from '../domain/uma-receivers.ts';
import type { Db, Tx } from '../store/db.ts';
import type { CustomersTable, ReceiverLookupsTable } from '../store/schema.ts';
import type { Ctx, Scope } from '../context.ts';
import { scopeNowMs } from '../context.ts';
import { scopedCustomers, type CustomerService } from './customers.ts';
import type { ExternalAccountService } from './external-accounts.ts';
import { getPlatformConfig, primaryCurrency } from '../platforms.ts';

export type UmaLookupResponse = Static<typeof UmaReceiverLookup>;
export type AccountLookupResponse = Static<typeof AccountReceiverLookup>;

/**
 * An estimated rate, receiving units per sending unit, or undefined when none is known. Injected: the
 * sandbox reads its fixed table, production has no rate source yet (see app.ts).
 */
export type EstimateRate = (scope: Scope, from: string, to: string) => Promise<number | undefined>;

/** Who pays: exactly one of the two query forms, both naming one of the platform's customers. */
export interface LookupSender {
  senderUmaAddress?: string | undefined;
  customerId?: string | undefined;
}

export interface SupportedCurrency {
  currency: Currency;
  estimatedExchangeRate: number;
  min: number;
  max: number;
}

export type LookupReceiver =
  | {
      type: 'UMA_ADDRESS';
      umaAddress: string;
      customerId: string | null;
      sandboxBehaviour: SandboxReceiverBehaviour | null;
    }
  | { type: 'EXTERNAL_ACCOUNT'; accountId: string };

/** A stored lookup, as quotes read it back (requireLookup). */
export interface ReceiverLookup {
  id: string;
  receiver: LookupReceiver;
  senderCustomerId: string;
  sendingCurrency: string;
  supportedCurrencies: SupportedCurrency[];
  requiredPayerDataFields: PayerDataField[];
  createdAt: string;
}

interface StoredCurrency {
  code: string;
  estimatedExchangeRate: number;
  min: number;
  max: number;
}

function toReceiverLookup(row: ReceiverLookupsTable): ReceiverLookup {
  const receiver: LookupReceiver =
    row.receiver_type === 'UMA_ADDRESS'
      ? {
          type: 'UMA_ADDRESS',
          umaAddress: row.receiver,
          customerId: row.receiver_customer_id,
          sandboxBehaviour: row.sandbox_behaviour as SandboxReceiverBehaviour | null,
        }
      : { type: 'EXTERNAL_ACCOUNT', accountId: row.receiver };
  return {
    id: row.id,
    receiver,
    senderCustomerId: row.sender_customer_id,
    sendingCurrency: row.sending_currency,
    supportedCurrencies: (JSON.parse(row.supported_currencies) as StoredCurrency[]).map(({ code, ...rest }) => ({
      currency: currencyOf(code),
      ...rest,
    })),
    requiredPayerDataFields: JSON.parse(row.required_payer_data_fields) as PayerDataField[],
    createdAt: iso(row.created_at),
  };
}

/**
 * The stored lookup with its receiver and currencies, if it belongs to this scope; 404
 * LOOKUP_REQUEST_NOT_FOUND otherwise. Quotes to UMA destinations call this with the request's lookupId.
 */
export async function requireLookup(trx: Db | Tx, scope: Scope, lookupId: string): Promise<ReceiverLookup> {
  const row = await trx
    .selectFrom('receiver_lookups')
    .selectAll()
    .where('id', '=', lookupId)
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  if (!row) throw notFound('Lookup', lookupId, 'LOOKUP_REQUEST_NOT_FOUND');
  return toReceiverLookup(row);
}

export interface ReceiverLookupPeers {
  customers: CustomerService;
  externalAccounts: ExternalAccountService;
  estimateRate: EstimateRate;
}

/** The paying customer, named by id or by UMA address (exactly one). */
async function senderOf(deps: ReceiverLookupDeps, scope: Scope, sender: LookupSender): Promise<CustomersTable> {
  const { ctx, peers } = deps;
  const { db } = ctx.store;
  const { senderUmaAddress, customerId } = sender;
  if ((senderUmaAddress === undefined) === (customerId === undefined)) {
    throw invalidInput(
      'customerId',
      'give exactly one of senderUmaAddress or customerId',
      'oneOf:senderUmaAddress,customerId',
    );
  }
  if (customerId !== undefined) return peers.customers.requireActive(db, scope, customerId);
  if (!isUmaAddress(senderUmaAddress!))
    throw new AppError('INVALID_UMA_ADDRESS', 'senderUmaAddress must look like $name@domain', {
      field: 'senderUmaAddress',
    });
  const row = await scopedCustomers(db, scope)
    .selectAll()
    .where('uma_address', '=', senderUmaAddress!)
    .where('is_deleted', '=', 0n)
    .executeTakeFirst();
  if (!row) throw notFound('Customer with UMA address', senderUmaAddress!, 'USER_NOT_FOUND');
  return row;
}

/**
 * The receiving currencies with an estimate from the sending currency. Same currency is 1 by definition;
 * a currency with no known rate is left out rather than shown with an invented one.
 */
async function quoteCurrencies(
  deps: ReceiverLookupDeps,
  scope: Scope,
  sendingCurrency: string,
  receiving: readonly string[],
): Promise<StoredCurrency[]> {
  const { peers } = deps;
  const listed: StoredCurrency[] = [];
  for (const code of receiving) {
    const rate = code === sendingCurrency ? 1 : await peers.estimateRate(scope, sendingCurrency, code);
    if (rate !== undefined && rate > 0)
      listed.push({ code, estimatedExchangeRate: rate, min: LOOKUP_MIN_AMOUNT, max: LOOKUP_MAX_AMOUNT });
  }
  return listed;
}

async function save(
  deps: ReceiverLookupDeps,
  scope: Scope,
  fields: Omit<ReceiverLookupsTable, 'id' | 'platform_id' | 'environment' | 'created_at'>,
): Promise<ReceiverLookup> {
  const { ctx } = deps;
  const { db } = ctx.store;
  const row: ReceiverLookupsTable = {
    id: newId('Lookup'),
    platform_id: scope.platformId,
    environment: scope.environment,
    ...fields,
    created_at: BigInt(scopeNowMs(ctx, scope)),
  };
  await db.insertInto('receiver_lookups').values(row).execute();
  return toReceiverLookup(row);
}

function publicFields(lookup: ReceiverLookup) {
  return {
    lookupId: lookup.id,
    supportedCurrencies: lookup.supportedCurrencies,
    ...(lookup.requiredPayerDataFields.length > 0 ? { requiredPayerDataFields: lookup.requiredPayerDataFields } : {}),
  };
}

/**
 * Resolves a UMA address: in the sandbox, the test receivers on the sandbox domains; everywhere, the
 * platform's own customers. Nothing else is reachable (no outbound UMA protocol calls are made): 404.
 */
async function lookupUma(
  deps: ReceiverLookupDeps,
  scope: Scope,
  receiverUmaAddress: string,
  sender: LookupSender,
): Promise<UmaLookupResponse> {
  const { ctx } = deps;
  const { db } = ctx.store;
  if (!isUmaAddress(receiverUmaAddress))
    throw new AppError('INVALID_UMA_ADDRESS', 'receiverUmaAddress must look like $name@domain', {
      field: 'receiverUmaAddress',
    });
  const payer = await senderOf(deps, scope, sender);
  const config = await getPlatformConfig(ctx, scope);
  const sendingCurrency = primaryCurrency(config);
  const test = scope.environment === 'sandbox' ? sandboxTestReceiver(receiverUmaAddress) : undefined;
  let receiverCustomerId: string | null = null;
  if (!test) {
    const own = await scopedCustomers(db, scope)
      .select('id')
      .where('uma_address', '=', receiverUmaAddress)
      .where('is_deleted', '=', 0n)
      .executeTakeFirst();
    if (!own)
      throw new AppError('UMA_NOT_FOUND', `No UMA receiver answers at ${receiverUmaAddress}`, {
        field: 'receiverUmaAddress',
      });
    if (own.id === payer.id)
      throw new AppError('SELF_PAYMENT', 'The sender and the receiver are the same customer', {
        field: 'receiverUmaAddress',
      });
    receiverCustomerId = own.id;
  }
  const lookup = await save(deps, scope, {
    receiver_type: 'UMA_ADDRESS',
    receiver: receiverUmaAddress,
    receiver_customer_id: receiverCustomerId,
    sandbox_behaviour: test?.behaviour ?? null,
    sender_customer_id: payer.id,
    sending_currency: sendingCurrency,
    supported_currencies: JSON.stringify(
      await quoteCurrencies(deps, scope, sendingCurrency, test?.currencies ?? config.supportedCurrencies),
    ),
    required_payer_data_fields: JSON.stringify(test ? TEST_RECEIVER_PAYER_DATA : []),
  });
  return { ...publicFields(lookup), receiverUmaAddress };
}

/** Resolves one of the platform's external accounts that can take payments; its currency is the one offered. */
async function lookupExternalAccount(
  deps: ReceiverLookupDeps,
  scope: Scope,
  accountId: string,
  sender: LookupSender,
): Promise<AccountLookupResponse> {
  const { ctx, peers } = deps;
  const { db } = ctx.store;
  const payer = await senderOf(deps, scope, sender);
  const account = await peers.externalAccounts.requireUsableExternalAccount(db, scope, accountId);
  const sendingCurrency = primaryCurrency(await getPlatformConfig(ctx, scope));
  const lookup = await save(deps, scope, {
    receiver_type: 'EXTERNAL_ACCOUNT',
    receiver: account.id,
    receiver_customer_id: account.customer_id,
    sandbox_behaviour: null,
    sender_customer_id: payer.id,
    sending_currency: sendingCurrency,
    supported_currencies: JSON.stringify(await quoteCurrencies(deps, scope, sendingCurrency, [account.currency])),
    required_payer_data_fields: JSON.stringify([]),
  });
  return { ...publicFields(lookup), accountId: account.id };
}

interface ReceiverLookupDeps {
  ctx: Ctx;
  peers: ReceiverLookupPeers;
}

export interface ReceiverLookupService {
  /**
   * What a UMA address can receive, with estimated rates, kept as a lookup a quote can name. Raises INVALID_INPUT,
   * INVALID_UMA_ADDRESS, USER_NOT_FOUND, UMA_NOT_FOUND, SELF_PAYMENT.
   */
  lookupUma(scope: Scope, receiverUmaAddress: string, sender: LookupSender): Promise<UmaLookupResponse>;
  /**
   * What an external account can receive, kept as a lookup. Raises INVALID_INPUT, INVALID_UMA_ADDRESS,
   * USER_NOT_FOUND, REFERENCE_NOT_FOUND.
   */
  lookupExternalAccount(scope: Scope, accountId: string, sender: LookupSender): Promise<AccountLookupResponse>;
}

export function makeReceiverLookupService(ctx: Ctx, peers: ReceiverLookupPeers): ReceiverLookupService {
  const deps: ReceiverLookupDeps = { ctx, peers };
  return {
    lookupUma: bindDeps(deps, lookupUma),
    lookupExternalAccount: bindDeps(deps, lookupExternalAccount),
  };
}
