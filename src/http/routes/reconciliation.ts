// GET /operator/reconciliation: a bank connector's reconciliation report (services/bank/reconcile.ts) on the
// operator API, as JSON or CSV. Registered inside the operator routes, behind their credential.
import { Type } from '@sinclair/typebox';
import { invalidInput } from '../../domain/errors.ts';
import { csvLines, parseSpan, reconciliationJson } from '../../domain/reconciliation.ts';
import { reconcile } from '../../services/bank/reconcile.ts';
import type { Services } from '../../services/index.ts';
import { StringEnum } from '../../wire/common.ts';
import type { Http } from '../http.ts';

export function reconciliationRoute(api: Http, services: Services): void {
  const ReconciliationQuery = Type.Object(
    {
      from: Type.String({ minLength: 1, maxLength: 40 }),
      to: Type.String({ minLength: 1, maxLength: 40 }),
      connector: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      format: Type.Optional(StringEnum(['json', 'csv'] as const)),
    },
    { additionalProperties: false },
  );
  // Every payment of the span with its file, the bank's report and entry, and what does not agree.
  api.get('/reconciliation', { schema: { hide: true, querystring: ReconciliationQuery } }, async (req, reply) => {
    const { from, to, connector, format = 'json' } = req.query;
    const span = parseSpan(from, to);
    if ('field' in span) throw invalidInput(span.field, `${span.field} ${span.message}`, 'dateOrTime');
    const report = await reconcile(services.ctx, { ...span, connector });
    if (format === 'json') return reconciliationJson(report);
    const name = `reconciliation-${from}-${to}${connector ? `-${connector}` : ''}.csv`.replace(/[^\w.-]/g, '_');
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(`${[...csvLines(report)].join('\r\n')}\r\n`);
  });
}
