import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../context.ts';
import { answerOnce } from '../services/idempotency.ts';
import type { JobWorker } from '../jobs/worker.ts';
import { ErrorBody } from '../wire/common.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that creates something or moves money: it honours Idempotency-Key (see answerOnce). */
    idempotent?: boolean;
  }
}

const KEY_HEADER = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Makes a retry safe: the first answer to a key is stored and replayed byte for byte',
    }),
  ),
});

type ErrorBodyOf = (err: unknown) => { status: number; code: string } | undefined;

/**
 * Gives every route marked `config.idempotent` the one idempotency rule. Its handler runs inside the
 * database transaction that also stores its answer; it must return its body (after `reply.status(…)`),
 * not send it, so the exact bytes can be stored. A replay carries `Idempotent-Replayed: true`.
 */
export function idempotentRoutes(ctx: Ctx, worker: JobWorker, errorBody: ErrorBodyOf) {
  const storableError = (err: unknown) => {
    const body = errorBody(err);
    return body && body.status < 500 ? { status: body.status, body: JSON.stringify(body) } : undefined;
  };
  return (route: RouteOptions): void => {
    if (!route.config?.idempotent) return;
    // Every such route can answer 422 IDEMPOTENCY_KEY_REUSED, so its document says so.
    route.schema = {
      ...route.schema,
      headers: route.schema?.headers ?? KEY_HEADER,
      response: { 422: ErrorBody, ...(route.schema?.response as object) },
    };
    const handler = route.handler;
    route.handler = async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string') return handler.call(this as never, request, reply);
      const identity = { route: route.url, params: request.params, body: request.body ?? null };
      const answer = await answerOnce(
        ctx,
        request.principal,
        key,
        identity,
        async () => {
          const body = await handler.call(this as never, request, reply);
          if (body === reply) throw new Error(`${route.url} must return its body to be idempotent`);
          return { status: reply.statusCode, body: JSON.stringify(body) };
        },
        storableError,
      );
      // Work the request queued is visible to the worker only now that it has committed.
      worker.kick();
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(answer.status).type('application/json; charset=utf-8').send(answer.body);
    };
  };
}
