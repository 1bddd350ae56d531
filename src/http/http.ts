// What every route module shares with the server that mounts it, kept apart so routes never import the
// server (which imports them).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';

export const API_VERSION = '2025-10-13';

/** The Fastify instance routes are registered on, typed by the TypeBox schemas they declare. */
export type Http = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;
