// Which part of the service a function belongs to, from where its code lives: one table for both of
// bench:lab:profile's views of a loaded server (V8's CPU profile and perf's on-CPU samples).

const AREAS: Array<[RegExp, string]> = [
  [/node_modules\/(pino|sonic-boom|fast-redact|thread-stream|pino-std-serializers|@pinojs)\//, 'logging'],
  [
    /node_modules\/(ajv|ajv-formats|fast-uri|fast-deep-equal)\/|(src|dist)\/http\/(validation|bad-input)\.ts/,
    'validation',
  ],
  [
    /(src|dist)\/http\/(auth|rate-limit)\.[tj]s|(src|dist)\/services\/tokens\.[tj]s|@fastify\/rate-limit/,
    'auth and rate limit',
  ],
  [/node_modules\/kysely\//, 'SQL building (Kysely)'],
  [/node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|pgpass)\//, 'PostgreSQL driver (pg)'],
  [/node_modules\/better-sqlite3\/|(src|dist)\/store\//, 'store (driver glue, group commit)'],
  [
    /(src|dist)\/(jobs|webhooks)\/|(src|dist)\/services\/transactions\/jobs\.[tj]s|node_modules\/undici\//,
    'jobs and webhook delivery',
  ],
  [
    /(src|dist)\/http\/|node_modules\/(fastify|@fastify|find-my-way|avvio|fast-json-stringify|secure-json-parse)\//,
    'HTTP',
  ],
  [/node_modules\/(fast-querystring|toad-cache|light-my-request|fast-content-type-parse|content-type)\//, 'HTTP'],
  [/node:_http|node:http|node:net|node:internal\/(http|streams|stream_base|net)/, 'HTTP and sockets'],
  [/(src|dist)\//, 'service, ledger and domain logic'],
  [/node_modules\/(tsx|esbuild)\/|node:internal\/modules/, 'startup (module loading)'],
];

/** The area of code at `location` (a file URL or path, or a `node:` module); Node's own otherwise. */
export function areaOf(location: string): string {
  for (const [pattern, area] of AREAS) if (pattern.test(location)) return area;
  return 'Node internals (timers, promises, events)';
}
