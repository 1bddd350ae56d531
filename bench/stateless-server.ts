/**
 * The stateless baseline of `npm run bench`: the same Fastify, the same TypeBox schema of the transfer-out
 * body validated by an Ajv set up as the service's (strict bodies, every error, unknown fields named), and
 * a canned Transaction (the schema's own example) as the answer. No database, no auth, no work: what
 * serving POST /transfer-out costs before the service does anything. Listens on PORT at HOST, says where
 * over an IPC channel and answers /readyz, so test/helpers/processes.ts spawnServer starts and stops it like
 * the real server.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify from 'fastify';
import { exampleOf } from '../src/http/schemas/component.ts';
import { Transaction, TransferOutRequest } from '../src/http/schemas/transactions.ts';
import { namingUnknownFields } from '../src/http/validation.ts';
import type { ServeReady } from '../src/cli/commands/serve.ts';

// The options src/http/server.ts gives its body validator.
const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: true, strict: false });
addFormats.default(ajv);

const app = Fastify({ logger: false });
app.setValidatorCompiler(({ schema }) => namingUnknownFields(ajv.compile(schema)));
const answer = exampleOf(Transaction);
app.get('/readyz', async () => ({ status: 'ok' }));
app.post('/2025-10-13/transfer-out', { schema: { body: TransferOutRequest } }, async (_req, reply) =>
  reply.status(201).send(answer),
);
const url = await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
// The bench starts it as it starts `payouts serve` (spawnServer): it learns the bound port over IPC.
process.send?.({ event: 'payouts:listening', url } satisfies ServeReady);
process.channel?.unref();
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close());
