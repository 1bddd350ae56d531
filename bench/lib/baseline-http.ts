/**
 * What the bench's own HTTP servers share (the stateless baseline and the raw-SQL ceiling behind HTTP): the
 * same Fastify, the same TypeBox body schema of POST /transfer-out validated by an Ajv set up as the
 * service's (strict bodies, every error, unknown fields named), and the same canned Transaction as the
 * answer. Each listens on PORT at HOST and says where over an IPC channel, so test/helpers/processes.ts
 * spawnServer starts and stops it as it does `payouts serve`.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { exampleOf } from '../../src/wire/component.ts';
import { Transaction, TransferOutRequest } from '../../src/wire/transactions.ts';
import { namingUnknownFields } from '../../src/http/validation.ts';
import type { ServeReady } from '../../src/cli/commands/serve.ts';

export type TransferOutBody = Static<typeof TransferOutRequest>;

/** The answer both servers give: the schema's own example of a Transaction. */
export const CANNED_TRANSACTION = exampleOf(Transaction);

/** A Fastify app with the service's body validation and a /readyz; the caller adds its POST /transfer-out. */
export function baselineApp(): FastifyInstance {
  // The options src/http/server.ts gives its body validator.
  const ajv = new Ajv({
    coerceTypes: false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: false,
  });
  addFormats.default(ajv);
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(({ schema }) => namingUnknownFields(ajv.compile(schema)));
  app.get('/readyz', async () => ({ status: 'ok' }));
  return app;
}

/** The route POST /transfer-out, its body validated as the service validates it. */
export function transferOutRoute(
  app: FastifyInstance,
  handler: (body: TransferOutBody) => Promise<{ status: number; body: unknown }>,
): void {
  app.post('/2025-10-13/transfer-out', { schema: { body: TransferOutRequest } }, async (request, reply) => {
    const answer = await handler(request.body as TransferOutBody);
    return reply.status(answer.status).send(answer.body);
  });
}

/** Listens as `payouts serve` does for spawnServer: the bound address over IPC, SIGTERM and SIGINT to stop. */
export async function listenForBench(app: FastifyInstance, onClose: () => Promise<void> = async () => {}) {
  const url = await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
  process.send?.({ event: 'payouts:listening', url } satisfies ServeReady);
  process.channel?.unref();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(onClose));
}
