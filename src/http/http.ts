// What every route module shares with the server that mounts it, kept apart so routes never import the
// server (which imports them).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const API_VERSION = '2025-10-13';

/** The Fastify instance routes are registered on, typed by the TypeBox schemas they declare. */
export type Http = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;

/** Answers 201 with `body`. Routes return their body rather than send it, so idempotency can store it. */
export function created<T>(reply: FastifyReply, body: T): T {
  reply.status(201);
  return body;
}

/** preValidation for routes whose body the public API makes optional: no body at all means {}. */
export async function emptyBodyIsObject(req: { body: unknown }): Promise<void> {
  req.body ??= {};
}
