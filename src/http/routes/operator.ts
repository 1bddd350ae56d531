import { sameSecret } from '../../domain/secrets.ts';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { ENVIRONMENTS } from '../../domain/environments.ts';
import { FAILURE_REASONS } from '../../domain/failure-reasons.ts';
import type { Services } from '../../services/index.ts';
import { settleMany, summarize, type Selection, type SettlementLine } from '../../services/settlement.ts';
import type { Http } from '../http.ts';
import type { BankCreditsTable, RailEventsTable, RailPaymentsTable } from '../../store/schema.ts';
import { StringEnum } from '../../wire/common.ts';
import { reconciliationRoute } from './reconciliation.ts';

const SettlementBody = Type.Object(
  {
    action: StringEnum(['settle', 'fail'] as const),
    ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 10_000 })),
    filter: Type.Optional(
      Type.Object(
        {
          status: Type.Literal('PROCESSING'),
          olderThanSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
          platformId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          environment: Type.Optional(StringEnum(ENVIRONMENTS)),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    reason: Type.Optional(StringEnum(FAILURE_REASONS)),
    dryRun: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** A run over more payments than this asks for a filter `limit` of its own. */
const DEFAULT_LIMIT = 1000;

/** `Authorization: Bearer <OPERATOR_TOKEN>`: the operator's credential, never a platform's token. */
function operatorAuth(token: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const [scheme, given] = (request.headers.authorization ?? '').trim().split(/\s+/, 2);
    if (scheme?.toLowerCase() !== 'bearer' || !given || !sameSecret(given, token))
      throw new AppError('UNAUTHORIZED', 'The operator API takes Authorization: Bearer <OPERATOR_TOKEN>');
  };
}

/**
 * The operator API, for a back office: settle or fail the payments the production connector holds, by id
 * or by filter, with a dry run; a bank connector's reconciliation report. Served under /operator only when
 * OPERATOR_TOKEN is set; not part of the public API, so not in its OpenAPI document.
 */
export function operatorRoutes(services: Services) {
  return async (api: Http): Promise<void> => {
    const token = services.ctx.config.operatorToken;
    if (!token) return;
    api.addHook('onRequest', operatorAuth(token));
    api.post('/settlements', {
      schema: { hide: true, body: SettlementBody },
      handler: async (req) => {
        const { action, ids, filter, reason, dryRun = false } = req.body;
        if ((ids === undefined) === (filter === undefined))
          throw invalidInput('ids', 'give either ids or filter, not both and not neither', 'oneOf');
        const selection: Selection = ids
          ? { ids }
          : {
              olderThanMs: filter?.olderThanSeconds === undefined ? undefined : filter.olderThanSeconds * 1000,
              platformId: filter?.platformId,
              environment: filter?.environment,
              limit: filter?.limit ?? DEFAULT_LIMIT,
            };
        const results: SettlementLine[] = [];
        for await (const line of settleMany(services.ctx, services.transactions, { action, reason, dryRun, selection }))
          results.push(line);
        return { dryRun, totals: summarize(results), results };
      },
    });
    const Limit = Type.Object(
      { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) },
      { additionalProperties: false },
    );
    // Payments a connector holds whose outcome is unknown: settle or fail them through /settlements by id.
    api.get('/attention', { schema: { hide: true, querystring: Limit } }, async (req) => ({
      data: (await services.connectors.attention(req.query.limit ?? 100)).map(attentionLine),
    }));
    api.get('/rail-events', { schema: { hide: true, querystring: Limit } }, async (req) => ({
      data: (await services.connectors.recentEvents(req.query.limit ?? 100)).map(railEventLine),
    }));
    api.get('/connectors', { schema: { hide: true } }, async () => ({ data: await services.connectors.check() }));
    reconciliationRoute(api, services);
    // The credits the bank-file connectors' notifications booked; ?result=UNMATCHED is the unmatched list.
    const CreditsQuery = Type.Object(
      {
        result: Type.Optional(StringEnum(['FUNDED', 'MISMATCH', 'UNMATCHED'] as const)),
        connector: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
      },
      { additionalProperties: false },
    );
    api.get('/bank/credits', { schema: { hide: true, querystring: CreditsQuery } }, async (req) => ({
      data: (
        await services.bank.credits({
          result: req.query.result,
          connector: req.query.connector,
          limit: req.query.limit ?? 100,
        })
      ).map(creditLine),
    }));
  };
}

const iso = (ms: bigint | null) => (ms === null ? undefined : new Date(Number(ms)).toISOString());

function attentionLine(row: RailPaymentsTable) {
  return {
    transactionId: row.transaction_id,
    platformId: row.platform_id,
    connector: row.connector,
    railReference: row.rail_reference ?? undefined,
    reason: row.attention,
    since: iso(row.attention_since),
    calls: Number(row.calls),
    lastError: row.last_error ?? undefined,
  };
}

function railEventLine(row: RailEventsTable) {
  return {
    id: row.id,
    connector: row.connector,
    transactionId: row.transaction_id ?? undefined,
    railReference: row.rail_reference ?? undefined,
    status: row.status,
    failureReason: row.failure_reason ?? undefined,
    result: row.result,
    occurredAt: iso(row.occurred_at),
    receivedAt: iso(row.received_at),
  };
}

function creditLine(row: BankCreditsTable) {
  return {
    id: row.id,
    connector: row.connector,
    bankFileId: row.bank_file_id,
    entryKey: row.entry_key,
    reference: row.reference ?? undefined,
    amount: Number(row.amount),
    currency: row.currency,
    bookedAt: iso(row.booked_at),
    result: row.result,
    quoteId: row.quote_id ?? undefined,
    transactionId: row.transaction_id ?? undefined,
    receivedAt: iso(row.created_at),
  };
}
