// A fixtures file (`payouts fixtures FILE`): API requests applied in order to a running server, each able to
// use values from the answers before it and from the environment. This module reads and checks a file and
// resolves its references; it sends nothing (commands/fixtures.ts does). Everything that can be checked
// without the server's answers is checked before the first request, so a bad file changes nothing.
import { createHash } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import { StringEnum } from '../wire/common.ts';
import { canonical } from '../domain/canonical-json.ts';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const WITHOUT_BODY: ReadonlySet<string> = new Set(['GET', 'DELETE']);
/** `env` names the environment in a reference, so no step may be called that. */
const ENV = 'env';

const FixtureStep = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' }),
    method: StringEnum(METHODS),
    path: Type.String({ pattern: '^/', maxLength: 4096 }),
    body: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

const FixtureFile = Type.Object(
  {
    description: Type.Optional(Type.String()),
    fixtures: Type.Array(FixtureStep, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type FixtureStep = Static<typeof FixtureStep>;

/** What a pattern or a size rule means, said for the person who wrote the file. */
const RULES: Record<string, string> = {
  name: 'must start with a letter and hold only letters, digits, _ and - (at most 64 characters)',
  path: "must start with / (it is under the API's base path, e.g. /customers)",
  fixtures: 'must hold at least one step',
};

const validate = new Ajv({ allErrors: true, strict: false }).compile<Static<typeof FixtureFile>>(FixtureFile);

/** `${step:a.0.b}` or `${env:NAME}` as written, and what it points at. */
type Reference = { text: string } & ({ kind: 'env'; name: string } | { kind: 'step'; step: string; path: string[] });
/** A string of the file: literal text and references, in order. */
type Template = Array<string | Reference>;

// `$${` is a literal `${`; `${…}` a reference; a `${` left unclosed is a mistake, not text.
const TOKEN = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const STEP_REFERENCE = /^([A-Za-z][A-Za-z0-9_-]*):([^.]+(?:\.[^.]+)*)$/;
const ENV_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

/** The pieces of one string, or the reason it cannot be read. */
function parseTemplate(text: string): Template | string {
  const pieces: Template = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    const [token, inner] = match;
    if (match.index > last) pieces.push(text.slice(last, match.index));
    last = match.index + token.length;
    if (token === '$${') {
      pieces.push('${');
      continue;
    }
    if (inner === undefined) return `has a \${ without its closing } (write $\${ for a literal \${)`;
    const env = ENV_REFERENCE.exec(inner);
    const step = STEP_REFERENCE.exec(inner);
    if (env?.[1]) pieces.push({ text: token, kind: 'env', name: env[1] });
    else if (step?.[1] && step[2]) pieces.push({ text: token, kind: 'step', step: step[1], path: step[2].split('.') });
    else return `has ${token}, which is no reference: write \${STEP:PATH} (\${customer:id}) or \${env:NAME}`;
  }
  if (last < text.length) pieces.push(text.slice(last));
  return pieces;
}

/** Every string in a step (its path, and each string anywhere in its body) with the field it sits in. */
function* stringsOf(value: unknown, field: string): Generator<[field: string, text: string]> {
  if (typeof value === 'string') yield [field, value];
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* stringsOf(item, `${field}.${i}`);
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) yield* stringsOf(item, `${field}.${key}`);
}

const stepLabel = (step: { name?: unknown } | undefined, index: number) =>
  typeof step?.name === 'string' ? `step "${step.name}" (fixtures[${index}])` : `fixtures[${index}]`;

/** One Ajv error as "step "bank" (fixtures[2]): method must be one of GET, POST, …". */
function describeSchemaError(raw: unknown, error: ErrorObject): string {
  const parts = error.instancePath.split('/').slice(1);
  const params = error.params as {
    missingProperty?: string;
    additionalProperty?: string;
    allowedValues?: string[];
    type?: string;
  };
  const named = params.missingProperty ?? params.additionalProperty;
  if (named !== undefined) parts.push(named);
  let where = 'the file';
  if (parts[0] === 'fixtures' && parts.length > 1) {
    const index = Number(parts[1]);
    const steps = (raw as { fixtures?: unknown[] }).fixtures;
    where = stepLabel(steps?.[index] as { name?: unknown } | undefined, index);
    parts.splice(0, 2);
  }
  const field = parts.join('.');
  let problem: string;
  if (error.keyword === 'required') problem = 'is missing';
  else if (error.keyword === 'additionalProperties')
    problem = `is not a field ${where === 'the file' ? 'the file' : 'a step'} takes`;
  else if (error.keyword === 'type')
    problem = `must be ${/^[aeiou]/.test(String(params.type)) ? 'an' : 'a'} ${params.type}`;
  else if (error.keyword === 'enum') problem = `must be one of ${(params.allowedValues ?? []).join(', ')}`;
  else problem = RULES[parts.at(-1) ?? ''] ?? error.message ?? 'is not valid';
  return field === '' ? `${where} ${problem}` : `${where}: ${field} ${problem}`;
}

/** The file's steps, or every problem found in it; only the variables the file names are read from `env`. */
export function checkFixtures(
  raw: unknown,
  env: NodeJS.ProcessEnv,
): { steps: FixtureStep[]; problems?: undefined } | { problems: string[] } {
  if (!validate(raw)) return { problems: (validate.errors ?? []).map((e) => describeSchemaError(raw, e)) };
  const problems: string[] = [];
  const earlier = new Set<string>();
  const all = new Set(raw.fixtures.map((s) => s.name));
  for (const [index, step] of raw.fixtures.entries()) {
    const where = stepLabel(step, index);
    if (step.name === ENV) problems.push(`${where}: name "env" is kept for \${env:NAME}: choose another`);
    if (earlier.has(step.name)) problems.push(`${where}: name is used by an earlier step: names must be unique`);
    if (step.body !== undefined && WITHOUT_BODY.has(step.method))
      problems.push(`${where}: body is not sent with ${step.method}: remove it`);
    for (const [field, text] of stringsOf(step, '')) {
      if (field === '.name' || field === '.method') continue;
      const template = parseTemplate(text);
      if (typeof template === 'string') {
        problems.push(`${where}: ${field.slice(1)} ${template}`);
        continue;
      }
      for (const piece of template) {
        if (typeof piece === 'string') continue;
        const about = `${where}: ${field.slice(1)} refers to ${piece.text}`;
        if (piece.kind === 'env' && env[piece.name] === undefined)
          problems.push(`${about}, but ${piece.name} is not set`);
        if (piece.kind === 'step' && !earlier.has(piece.step))
          problems.push(
            all.has(piece.step) && piece.step !== step.name
              ? `${about}, a later step: a step can use only the answers before it`
              : `${about}, but no earlier step is named "${piece.step}"`,
          );
      }
    }
    earlier.add(step.name);
  }
  return problems.length > 0 ? { problems } : { steps: raw.fixtures };
}

/** A reference that cannot be resolved against the answers so far: the run stops before sending the step. */
export class FixtureReferenceError extends Error {
  override name = 'FixtureReferenceError';
}

/** What a resolved step sends. */
export interface ResolvedRequest {
  method: FixtureStep['method'];
  path: string;
  body?: unknown;
}

interface Sources {
  step: FixtureStep;
  field: string;
  answers: ReadonlyMap<string, unknown>;
  env: NodeJS.ProcessEnv;
}

/** The value a reference points at; FixtureReferenceError naming the step and the reference when there is none. */
function valueOf(reference: Reference, { step, field, answers, env }: Sources): unknown {
  const fail = (why: string) =>
    new FixtureReferenceError(`step "${step.name}": ${field} refers to ${reference.text}, but ${why}`);
  if (reference.kind === 'env') {
    const value = env[reference.name];
    if (value === undefined) throw fail(`${reference.name} is not set`);
    return value;
  }
  if (!answers.has(reference.step)) throw fail(`no earlier step is named "${reference.step}"`);
  let value = answers.get(reference.step);
  for (const [depth, key] of reference.path.entries()) {
    const holder = value;
    value = Array.isArray(holder)
      ? /^\d+$/.test(key)
        ? holder[Number(key)]
        : undefined
      : holder !== null && typeof holder === 'object' && Object.hasOwn(holder, key)
        ? (holder as Record<string, unknown>)[key]
        : undefined;
    if (value === undefined) {
      const at = reference.path.slice(0, depth + 1).join('.');
      const size = Array.isArray(holder) ? ` (it holds ${holder.length} item${holder.length === 1 ? '' : 's'})` : '';
      throw fail(`the answer of "${reference.step}" has no ${at}${size}`);
    }
  }
  return value;
}

/**
 * One string of the file with its references replaced. In a body, a string that is one reference and nothing
 * else takes the value with its JSON type (a number stays a number, an object an object); inside a longer
 * string a value is written as text. The path (`encode` given) percent-encodes each value it takes.
 */
function resolveString(text: string, sources: Sources, encode?: (s: string) => string): unknown {
  const template = parseTemplate(text);
  if (typeof template === 'string') throw new FixtureReferenceError(`step "${sources.step.name}": ${template}`);
  const [only] = template;
  if (template.length === 1 && typeof only === 'object' && !encode) return valueOf(only, sources);
  return template
    .map((piece) => {
      if (typeof piece === 'string') return piece;
      const value = valueOf(piece, sources);
      // Answers and the environment hold JSON values: what is neither text, a number nor a boolean is a list,
      // an object or null, which have no one way to be written into a string.
      const written =
        typeof value === 'string'
          ? value
          : typeof value === 'number' || typeof value === 'boolean'
            ? `${value}`
            : undefined;
      if (written === undefined)
        throw new FixtureReferenceError(
          `step "${sources.step.name}": ${sources.field} puts ${piece.text} inside a longer string, but it is ` +
            `${value === null ? 'null' : Array.isArray(value) ? 'a list' : 'an object'}: use it as the whole string`,
        );
      return encode ? encode(written) : written;
    })
    .join('');
}

function resolveValue(value: unknown, sources: Sources): unknown {
  if (typeof value === 'string') return resolveString(value, sources);
  if (Array.isArray(value))
    return value.map((item, i) => resolveValue(item, { ...sources, field: `${sources.field}.${i}` }));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        resolveValue(item, { ...sources, field: `${sources.field}.${key}` }),
      ]),
    );
  return value;
}

/**
 * A value put into the path, percent-encoded so that it stays one segment or one query value; `:`, `@` and
 * `$` are kept as they are (valid there), so ids such as `Customer:…` read as the API shows them.
 */
const pathSafe = (value: string) =>
  encodeURIComponent(value).replace(/%(3A|40|24)/gi, (code) => decodeURIComponent(code));

/** The request a step sends, given the answers of the steps before it (by name) and the environment. */
export function resolveStep(
  step: FixtureStep,
  answers: ReadonlyMap<string, unknown>,
  env: NodeJS.ProcessEnv,
): ResolvedRequest {
  const path = String(resolveString(step.path, { step, field: 'path', answers, env }, pathSafe));
  if (step.body === undefined) return { method: step.method, path };
  return { method: step.method, path, body: resolveValue(step.body, { step, field: 'body', answers, env }) };
}

/**
 * The Idempotency-Key a POST carries: the same step sending the same resolved request gets the same key, so a
 * second run is answered with the first run's stored answers. The server keeps keys per platform and
 * environment, so any token of the same platform replays them; a changed body (or an earlier step that
 * created something new) makes a new key, hence a new object rather than 422 IDEMPOTENCY_KEY_REUSED.
 */
export function idempotencyKeyOf(stepName: string, request: ResolvedRequest): string {
  const hash = createHash('sha256')
    .update(canonical({ step: stepName, ...request }))
    .digest('hex');
  return `fixtures-${hash}`;
}
