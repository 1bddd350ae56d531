import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import sjson from 'secure-json-parse';
import type { Logger } from 'pino';
import { jsonBoundBreach } from '../domain/json-shape.ts';
import { AppError, type ErrorCode } from '../domain/errors.ts';
import { databaseUnavailable } from '../store/unavailable.ts';
import { makeAuthHook } from './auth.ts';
import type { Services } from '../services/index.ts';
import { registerRoutes } from './routes/index.ts';
import { operatorRoutes } from './routes/operator.ts';
import { connectorRoutes } from './routes/connectors.ts';
import { idempotentRoutes } from './idempotency.ts';
import { API_VERSION, type Http } from './http.ts';
import { registerOperations } from './operations.ts';
import { limitPerToken, type RateLimits } from './rate-limit.ts';
import { answerClientError, answerFrameworkError, guardApiInput, refuseLongUrl } from './bad-input.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
import { registerOpenApi } from './openapi.ts';
import { watchSandboxRequests } from './sandbox-requests.ts';
import { watchContract } from './contract-check.ts';
import { dashboard } from '../dashboard/index.ts';
import { namingUnknownFields } from './validation.ts';

export interface HttpOptions {
  logger: Logger;
  bodyLimitBytes: number;
  /** Requests per minute per token, by environment (0: no limit). */
  rateLimits: RateLimits;
  /** Check every response against its declared schema (tests turn this on so the OpenAPI document cannot drift). */
  validateResponses: boolean;
  /** Readiness: throws when the database cannot be reached. */
  ready: () => Promise<void>;
  /** Serve the MCP server at /mcp (MCP_HTTP); its SDK is loaded only then. */
  mcpHttp?: boolean;
}

function makeAjv(coerce: boolean): Ajv {
  // Bodies are strict (a "100" string is not an amount); query strings and paths arrive as text and are coerced.
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

/** Turns an Ajv failure into the field path a caller can act on (`accountInfo.routingNumber`). */
function fieldOf(error: ErrorObject, context: string | undefined): string {
  const path = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
  const field = path.join('.');
  return field || (context === 'body' ? 'body' : (context ?? 'request'));
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'REFERENCE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
};

export function toErrorBody(err: FastifyError | AppError | Error): {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
} {
  if (err instanceof AppError) {
    const { details } = err;
    // A 400 always lists its invalid fields in details.errors, even when the rules stopped at the first.
    const listed =
      err.status === 400 && details && typeof details.field === 'string' && !details.errors
        ? { ...details, errors: [{ field: details.field, rule: details.rule ?? 'invalid', message: err.message }] }
        : details;
    return { status: err.status, code: err.code, message: err.message, ...(listed ? { details: listed } : {}) };
  }
  if (databaseUnavailable(err)) {
    // Nothing the client sent is wrong, and nothing was committed: the same request may be sent again.
    return {
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is unavailable; retry the request shortly',
      details: { reason: 'DATABASE_UNAVAILABLE' },
    };
  }
  const fe = err as FastifyError;
  if (fe.validation && fe.validation.length > 0) {
    // Every invalid field, so a client fixes them in one round; the first also as details.field and rule.
    const errors = fe.validation.map((e) => {
      const field = fieldOf(e as ErrorObject, fe.validationContext);
      return { field, rule: e.keyword, message: `${field} ${e.message ?? 'is invalid'}` };
    });
    const first = fe.validation[0] as ErrorObject;
    const { field, rule, message } = errors[0]!;
    const allowed =
      first.params && 'allowedValues' in first.params ? { allowedValues: first.params.allowedValues } : {};
    return {
      status: 400,
      code: 'INVALID_INPUT',
      message,
      details: { field, rule, location: fe.validationContext ?? 'body', ...allowed, errors },
    };
  }
  if (
    fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    err instanceof SyntaxError
  ) {
    return {
      status: 400,
      code: 'INVALID_INPUT',
      message: 'Request body is not valid JSON',
      details: { field: 'body', rule: 'json' },
    };
  }
  const status = fe.statusCode;
  if (status && status >= 400 && status < 500) {
    return { status, code: CODE_BY_STATUS[status] ?? 'INVALID_INPUT', message: fe.message };
  }
  return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error' };
}

/**
 * Array query parameters arrive repeated (`?c=INR&c=GBP`, as the reference declares) or comma-joined
 * (`?c=INR,GBP`, as the official clients send them). Both become one array before validation.
 */
async function splitCommaArrays(request: FastifyRequest): Promise<void> {
  const properties = (
    request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: string }> } | undefined
  )?.properties;
  if (!properties || !request.query || typeof request.query !== 'object') return;
  const query = request.query as Record<string, unknown>;
  for (const [name, schema] of Object.entries(properties)) {
    const value = query[name];
    if (schema.type !== 'array' || value === undefined) continue;
    const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).filter((v) => v !== '');
    query[name] = parts;
  }
}

/**
 * Under test (validateResponses), a route may only answer the error statuses its schema declares: the
 * OpenAPI document lists them, and clients generated from it know no others. An undeclared one becomes a
 * 500 whose message names the route, the status and the code, so the test that provoked it fails loudly.
 * Statuses the server answers for every route (413, 414, 415, 429, 500, 503) need no declaration.
 */
export function undeclaredStatus(request: FastifyRequest, body: ReturnType<typeof toErrorBody>) {
  const declared = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
  if (!declared || EVERY_ROUTE_STATUSES.has(body.status) || String(body.status) in declared) return undefined;
  const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
  const message = `${route} answered ${body.status} ${body.code}, which its schema does not declare`;
  return { status: 500, code: 'INTERNAL_ERROR' as const, message };
}

const EVERY_ROUTE_STATUSES = new Set([413, 414, 415, 429, 500, 503]);

function errorBodyFor(request: FastifyRequest, err: Error, checkDeclared: boolean) {
  const body = toErrorBody(err);
  return (checkDeclared && undeclaredStatus(request, body)) || body;
}

/**
 * Bodies are validated strictly, query strings and paths with coercion; under test every response is
 * also checked against its declared schema.
 */
function useSchemaCompilers(app: Http, validateResponses: boolean): void {
  const bodyAjv = makeAjv(false);
  const otherAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    namingUnknownFields((httpPart === 'body' ? bodyAjv : otherAjv).compile(schema)),
  );

  const responseAjv = makeAjv(false);
  app.setSerializerCompiler(({ schema, url, method }) => {
    const validate = validateResponses ? responseAjv.compile(schema) : undefined;
    return (data) => {
      if (validate && !validate(data)) {
        throw new Error(
          `response of ${method} ${url} does not match its schema: ${responseAjv.errorsText(validate.errors)}`,
        );
      }
      return JSON.stringify(data);
    };
  });
}

/** Only JSON is accepted (multipart is added by the routes that take files); anything else is 415. */
function acceptJsonOnly(app: Http): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    let text: string;
    try {
      // Strict UTF-8: bytes that are not UTF-8 are refused, not silently stored as U+FFFD.
      text = strictUtf8.decode(typeof body === 'string' ? Buffer.from(body) : body);
    } catch {
      return done(
        new AppError('INVALID_INPUT', 'Request body is not valid UTF-8', { field: 'body', rule: 'utf8' }),
        undefined,
      );
    }
    // Official clients send POSTs such as execute with no body at all; an empty body is "no body".
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      return done(
        new AppError('INVALID_INPUT', 'Request body is not valid JSON', { field: 'body', rule: 'json' }),
        undefined,
      );
    }
    // Bounded here, before any validator, hash or copy could recurse once per level of it.
    const breach = jsonBoundBreach(parsed);
    if (breach) {
      const { field, limit, bound, message } = breach;
      return done(new AppError('INVALID_INPUT', message, { field, rule: `json.${limit}`, limit: bound }), undefined);
    }
    done(null, parsed);
  });
}

/** When a client may retry after a 503: about the time a database restart or a failover takes to be noticed. */
const RETRY_AFTER_SECONDS = 2;

/** Every refusal, the router's 404 and 405 included, answers in the error shape. */
function answerErrorsInShape(app: Http, validateResponses: boolean): void {
  app.addHook('onRequest', refuseLongUrl);

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.setErrorHandler((err, request, reply) => {
    const body = errorBodyFor(request, err as Error, validateResponses);
    if (body.status === 503) {
      // An outage, not a bug: one line per request, without a stack, and a hint of when to come back.
      request.log.warn({ code: body.code, cause: (err as Error).message }, 'request refused: service unavailable');
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    } else if (body.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: body.code, status: body.status }, 'request rejected');
    reply.status(body.status).type('application/json').send(JSON.stringify(body));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
      (method) => app.findRoute({ method: method, url: path }) !== null,
    );
    const body =
      allowed.length > 0
        ? {
            status: 405,
            code: 'METHOD_NOT_ALLOWED',
            message: `${request.method} is not allowed on ${path}`,
            details: { allowed },
          }
        : { status: 404, code: 'REFERENCE_NOT_FOUND', message: `No route ${request.method} ${path}` };
    if (allowed.length > 0) reply.header('allow', allowed.join(', '));
    reply.status(body.status).type('application/json').send(JSON.stringify(body));
  });
}

export async function buildHttp(services: Services, options: HttpOptions): Promise<Http> {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Paths keep `:` `$` `@` raw or percent-encoded; find-my-way decodes both to the same value.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    return503OnClosing: true,
    // What Node's HTTP parser and Fastify's router refuse is answered in the error shape too.
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  useSchemaCompilers(app, options.validateResponses);

  acceptJsonOnly(app);
  answerErrorsInShape(app, options.validateResponses);

  await registerOpenApi(app);

  registerOperations(app, services.metrics, options.ready);

  const authenticate = makeAuthHook(services.tokens);
  await app.register(
    async (api) => {
      api.addHook('onRequest', authenticate);
      // Once the credentials say whose request it is: the sandbox request log and fault rules.
      watchSandboxRequests(api as Http, services.sandboxRequests, services.sandboxFaults);
      // After the log's hooks: an answer a fault rule made is known as such when it is checked.
      watchContract(api as Http, services.contractCheck);
      await limitPerToken(api as Http, options.rateLimits);
      api.addHook('preValidation', splitCommaArrays);
      guardApiInput(api as Http);
      api.addHook(
        'onRoute',
        idempotentRoutes(services.ctx, services.worker, (err) => toErrorBody(err as Error)),
      );
      api.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
      registerRoutes(api as Http, services);
    },
    { prefix: `/${API_VERSION}` },
  );
  await app.register(operatorRoutes(services), { prefix: '/operator' });
  await app.register(connectorRoutes(services), { prefix: '/connectors' });
  await app.register(dashboard(services), { prefix: '/dashboard' });
  if (options.mcpHttp) (await import('./mcp.ts')).mcpRoutes(app as Http, services);
  // Read when the first answer is checked, once the server is ready: the document is whole only then.
  services.contractCheck.useDocument(() => app.swagger());

  return app;
}
