// Sandbox fault rules: a workspace asks for some of its own requests to be slowed, answered with an error,
// or cut off, to test its retries and time-outs. Rules live in the database so every server process applies
// them; each process keeps a workspace's rules in memory for RULES_FRESH_MS, so a request costs no read.
import { conflict, invalidInput, notFound } from '../domain/errors.ts';
import { iso } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import {
  checkRoutePattern,
  faultAnswerCode,
  type FaultMethod,
  isDiagnosticPath,
  patternMatcher,
} from '../domain/sandbox-faults.ts';
import { type Ctx, type Scope, wallNowMs } from '../context.ts';
import type { SandboxFaultsTable } from '../store/schema.ts';
import { statement } from '../store/compiled.ts';
import { bindDeps } from './bind.ts';

/** How long a process trusts its copy of a workspace's rules: a rule made elsewhere applies within this. */
export const RULES_FRESH_MS = 1000;
/** Rules per workspace. */
export const MAX_RULES = 100;
/** Workspaces whose rules one process keeps in memory at once. */
const MAX_CACHED_WORKSPACES = 10_000;
const PPM = 1_000_000;

export interface FaultRuleInput {
  route: string;
  method?: FaultMethod | undefined;
  probability?: number | undefined;
  latencyMs?: number | undefined;
  answer?: { status: number; code?: string | undefined } | undefined;
  drop?: boolean | undefined;
  times?: number | undefined;
}

export interface FaultRule {
  id: string;
  route: string;
  method: FaultMethod | null;
  probability: number;
  latencyMs: number;
  action: SandboxFaultsTable['action'];
  answer: { status: number; code: string } | null;
  /** Firings left; null fires without limit. */
  remaining: number | null;
  createdAt: string;
}

/** A rule as the request path uses it. */
export interface ActiveFault {
  id: string;
  latencyMs: number;
  action: SandboxFaultsTable['action'];
  answer: { status: number; code: string } | null;
}

interface CachedRule extends ActiveFault {
  method: string | null;
  matcher: RegExp;
  probabilityPpm: number;
  counted: boolean;
  /** Used up, here or in another process: this copy stops trying it. */
  usedUp: boolean;
}

export interface SandboxFaults {
  /** Adds a rule. Raises INVALID_INPUT naming the field, CONFLICT past MAX_RULES. */
  create(scope: Scope, input: FaultRuleInput): Promise<FaultRule>;
  /** The workspace's rules, in the order they are tried (oldest first). */
  list(scope: Scope): Promise<FaultRule[]>;
  /** Removes one rule and answers it. Raises REFERENCE_NOT_FOUND. */
  remove(scope: Scope, id: string): Promise<FaultRule>;
  /** Removes every rule of the workspace; answers how many. */
  clear(scope: Scope): Promise<number>;
  /** The rule that fires for this request, if any (counted down when it has a limit). */
  pick(scope: Scope, method: string, path: string): Promise<ActiveFault | undefined>;
  /** Forgets this process's copy of the workspace's rules (after a reset). */
  forget(scope: Scope): void;
}

function toFaultRule(row: SandboxFaultsTable): FaultRule {
  return {
    id: row.id,
    route: row.route,
    method: row.method,
    probability: Number(row.probability_ppm) / PPM,
    latencyMs: Number(row.latency_ms),
    action: row.action,
    answer:
      row.answer_status === null || row.answer_code === null
        ? null
        : { status: Number(row.answer_status), code: row.answer_code },
    remaining: row.remaining === null ? null : Number(row.remaining),
    createdAt: iso(row.created_at),
  };
}

/** The row for a rule; raises INVALID_INPUT for what the schema cannot say. */
function ruleRow(ctx: Ctx, scope: Scope, input: FaultRuleInput): SandboxFaultsTable {
  checkRoutePattern(input.route);
  const latencyMs = input.latencyMs ?? 0;
  if (input.drop === true && input.answer) {
    throw invalidInput('drop', 'a rule either answers (answer) or drops the connection (drop), not both');
  }
  const answerCode = input.answer ? faultAnswerCode(input.answer.status, input.answer.code) : null;
  const action = input.drop === true ? 'drop' : input.answer ? 'answer' : 'delay';
  if (action === 'delay' && latencyMs === 0) {
    throw invalidInput('answer', 'a rule needs an answer ({status, code}), drop: true, or latencyMs above 0');
  }
  return {
    id: newId('Fault'),
    platform_id: scope.platformId,
    environment: scope.environment,
    route: input.route,
    method: input.method ?? null,
    probability_ppm: BigInt(Math.round((input.probability ?? 1) * PPM)),
    latency_ms: BigInt(latencyMs),
    action,
    answer_status: input.answer ? BigInt(input.answer.status) : null,
    answer_code: answerCode,
    remaining: input.times === undefined ? null : BigInt(input.times),
    created_at: BigInt(wallNowMs(ctx)),
  };
}

/** A workspace's rules that can still fire, read again by every request once its cached copy is stale. */
const liveRules = statement((db, v: { platformId: string; environment: Scope['environment'] }) =>
  db
    .selectFrom('sandbox_faults')
    .selectAll()
    .where('platform_id', '=', v.platformId)
    .where('environment', '=', v.environment)
    .where((eb) => eb.or([eb('remaining', 'is', null), eb('remaining', '>', 0n)]))
    .orderBy('id'),
);

function scoped(ctx: Ctx, scope: Scope) {
  return ctx.store.db
    .selectFrom('sandbox_faults')
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment);
}

function toCached(row: SandboxFaultsTable): CachedRule {
  const rule = toFaultRule(row);
  return {
    id: rule.id,
    latencyMs: rule.latencyMs,
    action: rule.action,
    answer: rule.answer,
    method: rule.method,
    matcher: patternMatcher(rule.route),
    probabilityPpm: Number(row.probability_ppm),
    counted: row.remaining !== null,
    usedUp: false,
  };
}

/** Fires a counted rule once, if it has firings left: one conditional update, shared by every process. */
async function countDown(ctx: Ctx, id: string): Promise<boolean> {
  const result = await ctx.store.db
    .updateTable('sandbox_faults')
    .set((eb) => ({ remaining: eb('remaining', '-', 1n) }))
    .where('id', '=', id)
    .where('remaining', '>', 0n)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The first rule, oldest first, that matches the request and fires (its probability, its firings left). */
async function firstFiring(
  ctx: Ctx,
  rules: CachedRule[],
  method: string,
  path: string,
  random: () => number,
): Promise<ActiveFault | undefined> {
  for (const rule of rules) {
    if (rule.usedUp) continue;
    if (rule.method !== null && rule.method !== method) continue;
    if (!rule.matcher.test(path)) continue;
    if (rule.probabilityPpm < PPM && random() * PPM >= rule.probabilityPpm) continue;
    if (rule.counted && !(await countDown(ctx, rule.id))) {
      rule.usedUp = true;
      continue;
    }
    return rule;
  }
  return undefined;
}

interface SandboxFaultDeps {
  ctx: Ctx;
  random: () => number;
  /** This process's copy of each workspace's live rules, by workspace, with when it was read. */
  cache: Map<string, { rules: CachedRule[]; loadedAtMs: number }>;
}

const keyOf = (scope: Scope) => `${scope.platformId} ${scope.environment}`;

/** The workspace's live rules: this process's copy while fresh, else read again (and the oldest copy let go). */
async function rulesOf(deps: SandboxFaultDeps, scope: Scope): Promise<CachedRule[]> {
  const { ctx, cache } = deps;
  const key = keyOf(scope);
  const now = wallNowMs(ctx);
  const cached = cache.get(key);
  if (cached && now - cached.loadedAtMs < RULES_FRESH_MS) return cached.rules;
  const rows = await liveRules.rows(ctx.store.db, { platformId: scope.platformId, environment: scope.environment });
  const rules = rows.map(toCached);
  cache.delete(key);
  if (cache.size >= MAX_CACHED_WORKSPACES) cache.delete(cache.keys().next().value ?? '');
  cache.set(key, { rules, loadedAtMs: now });
  return rules;
}

function forget(deps: SandboxFaultDeps, scope: Scope): void {
  deps.cache.delete(keyOf(scope));
}

async function create(deps: SandboxFaultDeps, scope: Scope, input: FaultRuleInput): Promise<FaultRule> {
  const { ctx } = deps;
  const row = ruleRow(ctx, scope, input);
  const count = await scoped(ctx, scope)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= MAX_RULES) {
    throw conflict('too_many_fault_rules', `A workspace holds at most ${MAX_RULES} fault rules; delete some first`);
  }
  await ctx.store.db.insertInto('sandbox_faults').values(row).execute();
  forget(deps, scope);
  return toFaultRule(row);
}

async function list(deps: SandboxFaultDeps, scope: Scope): Promise<FaultRule[]> {
  return (await scoped(deps.ctx, scope).selectAll().orderBy('id').execute()).map(toFaultRule);
}

async function remove(deps: SandboxFaultDeps, scope: Scope, id: string): Promise<FaultRule> {
  const { ctx } = deps;
  const row = await scoped(ctx, scope).selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Fault rule', id);
  await ctx.store.db.deleteFrom('sandbox_faults').where('id', '=', id).execute();
  forget(deps, scope);
  return toFaultRule(row);
}

async function clear(deps: SandboxFaultDeps, scope: Scope): Promise<number> {
  const result = await deps.ctx.store.db
    .deleteFrom('sandbox_faults')
    .where('platform_id', '=', scope.platformId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  forget(deps, scope);
  return Number(result.numDeletedRows);
}

async function pick(
  deps: SandboxFaultDeps,
  scope: Scope,
  method: string,
  path: string,
): Promise<ActiveFault | undefined> {
  if (isDiagnosticPath(path)) return undefined;
  return firstFiring(deps.ctx, await rulesOf(deps, scope), method, path, deps.random);
}

export function makeSandboxFaults(ctx: Ctx, random: () => number = Math.random): SandboxFaults {
  const deps: SandboxFaultDeps = { ctx, random, cache: new Map() };
  return {
    create: bindDeps(deps, create),
    list: bindDeps(deps, list),
    remove: bindDeps(deps, remove),
    clear: bindDeps(deps, clear),
    pick: bindDeps(deps, pick),
    forget: bindDeps(deps, forget),
  };
}
