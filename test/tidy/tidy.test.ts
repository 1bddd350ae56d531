// House rules that a reviewer should not have to check by eye (in the spirit of TigerBeetle's tidy.zig).
// Each rule reads the source as it is on disk; a failure names the file, the line and the rule.
//
// Long functions are a ratchet: test/tidy/long-functions.json lists the functions over 70 lines that
// existed when the rule came in, each with its length then. One of them may shrink, never grow; one that
// shrank to 70 or less, or is gone, must leave the list; a new function over 70 lines fails.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, it } from '../helpers/node-test.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_LINE = 120;
const MAX_FUNCTION_LINES = 70;
const ALLOWLIST_FILE = join(import.meta.dirname, 'long-functions.json');
/** How many `any` types and non-null assertions `!` src/ holds: counts that may only go down. */
const RATCHETS_FILE = join(import.meta.dirname, 'ratchets.json');

/** Where services may read wall time (wallNowMs), and why it is not the scope's clock there. */
const WALL_CLOCK_IN_SERVICES: Record<string, string> = {
  'src/services/platforms.ts': 'a platform is created before it has a clock of its own',
  'src/services/rates.ts': 'when the operator rates file was loaded is a process fact',
  'src/services/transactions/lifecycle.ts': 'queues rail steps, and job due times are wall time',
  'src/services/quotes/index.ts': 'queues quote expiry, and job due times are wall time',
  'src/services/quotes/execution.ts': 'puts a not-yet-due expiry back, and job due times are wall time',
  'src/services/invitations.ts': 'queues invitation expiry, and job due times are wall time',
  'src/services/incoming-payments.ts': 'queues the approval time-out, and job due times are wall time',
  'src/services/settlement.ts': 'ages of production payments, whose times are wall time (no sandbox clock there)',
  'src/services/idempotency.ts': 'purges keys past their keeping time, a process-wide chore across platforms',
  'src/services/sandbox-requests.ts': 'when a request arrived is a fact of the process: the log keeps arrival order',
  'src/services/sandbox-faults.ts':
    "how fresh a process's copy of the rules is, and when a rule was made, in real time",
  'src/services/connectors/calls.ts': 'production rail calls and their retries run on wall time (no sandbox clock)',
  'src/services/connectors/events.ts': 'when a rail event was received is a fact of the process',
  'src/services/connectors/index.ts': 'checks callback signatures against real time, as the adapter stamped them',
  'src/services/index.ts': 'hands the dashboard real time for what the process did (a ledger check, a logged request)',
  'src/services/bank/ingest.ts': 'when a bank file was received and applied is a fact of the process (production only)',
  'src/services/bank/inbox.ts': "whether an inbox file has stopped changing is read against the file system's time",
  'src/services/bank/index.ts': 'bank cut-offs are times of the real day (UTC), and production has no sandbox clock',
  'src/services/bank/export.ts': 'when a bank file was made and its payments claimed is a fact of the process',
  'src/services/bank/recover.ts': 'when a recovered bank file was placed in the outbox is a fact of the process',
};

/**
 * What the dashboard may import for its values: itself, services/, and the pure layers below them (domain/
 * rules and wire/ shapes, which read nothing). From any other layer below services only types: a screen
 * reads through a service, never the store, the ledger, the jobs, the rails or the webhooks themselves.
 */
const DASHBOARD_VALUES_FROM = /^src\/(dashboard|services|domain|wire)\//;

function sourceFiles(...dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true })
      .map(String)
      .filter((f) => /\.(ts|mjs)$/.test(f))
      .map((f) => join(dir, f))
      .sort(),
  );
}

const ALL = sourceFiles('src', 'test', 'bench', 'scripts', 'bin', 'examples');
const SRC = ALL.filter((f) => f.startsWith('src/'));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

function keyName(key: unknown): string | undefined {
  const k = key as { type?: string; name?: string; value?: unknown } | undefined;
  if (!k) return undefined;
  if (k.type === 'Identifier' || k.type === 'PrivateIdentifier') return k.name;
  if (typeof k.value === 'string') return k.value;
  return undefined;
}

/** Every function in a file with a stable name (`outer.inner`, `outer.<anonymous>`) and its length in lines. */
function functionsOf(file: string): Array<{ name: string; lines: number; line: number }> {
  const text = read(file);
  const { program } = parseSync(file, text);
  const found: Array<{ name: string; lines: number; line: number }> = [];
  const seen = new Map<string, number>();
  function visit(node: unknown, path: string[], pendingName: string | undefined): void {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, path, undefined);
      return;
    }
    if (!node || typeof node !== 'object' || typeof (node as Node).type !== 'string') return;
    const n = node as Node;
    let inner = path;
    // A suite's body (`describe(name, () => { … })`) is a list of tests, not a function to keep short.
    if (n.type === 'CallExpression' && keyName(n.callee) === 'describe') {
      for (const arg of n.arguments as Node[]) {
        if (FUNCTION_TYPES.has(arg.type)) visit(arg.body, path, undefined);
        else visit(arg, path, undefined);
      }
      return;
    }
    if (FUNCTION_TYPES.has(n.type)) {
      const own = keyName(n.id) ?? pendingName ?? '<anonymous>';
      const base = [...path, own].join('.');
      const count = (seen.get(base) ?? 0) + 1;
      seen.set(base, count);
      const name = count === 1 ? base : `${base}#${count}`;
      const startLine = lineOf(text, n.start);
      found.push({ name, line: startLine, lines: lineOf(text, n.end) - startLine + 1 });
      inner = [...path, own];
    }
    for (const [key, value] of Object.entries(n)) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      let childName: string | undefined;
      if (n.type === 'VariableDeclarator' && key === 'init') childName = keyName(n.id);
      else if (
        (n.type === 'Property' || n.type === 'MethodDefinition' || n.type === 'PropertyDefinition') &&
        key === 'value'
      )
        childName = keyName(n.key);
      else if (n.type === 'AssignmentExpression' && key === 'right') childName = keyName(n.left);
      visit(value, inner, childName);
    }
  }
  visit(program, [], undefined);
  return found;
}

/** The files a file imports or re-exports from, each with whether only types come from it. */
function importsWithKindOf(file: string): Array<{ target: string; typeOnly: boolean }> {
  const { module } = parseSync(file, read(file));
  const specifiers = [
    ...module.staticImports.map((i) => ({
      value: i.moduleRequest.value,
      // `import type { A }` and `import { type A }` both name only types; a bare `import './x'` names none.
      typeOnly: i.entries.length > 0 && i.entries.every((e) => e.isType),
    })),
    ...module.staticExports.flatMap((e) =>
      e.entries.flatMap((x) => (x.moduleRequest ? [{ value: x.moduleRequest.value, typeOnly: x.isType }] : [])),
    ),
  ];
  return specifiers
    .filter((s) => s.value.startsWith('.'))
    .map((s) => ({ target: normalize(join(dirname(file), s.value)), typeOnly: s.typeOnly }));
}

function importsOf(file: string): string[] {
  return importsWithKindOf(file).map((i) => i.target);
}

/** Every `any` type and every non-null assertion (`x!`) in a file, by the parser's node types. */
function looseTypesOf(file: string): { any: number; nonNull: number } {
  const counts = { any: 0, nonNull: 0 };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const n = node as Node;
    if (n.type === 'TSAnyKeyword') counts.any++;
    if (n.type === 'TSNonNullExpression') counts.nonNull++;
    for (const [key, value] of Object.entries(n)) if (key !== 'type') visit(value);
  };
  visit(parseSync(file, read(file)).program);
  return counts;
}

/**
 * Rewrites the allowlist from the tree as it is: `TIDY_WRITE_ALLOWLIST=1 npm test -- test/tidy/tidy.test.ts`.
 * Only for bringing the rule in, or to record a shrink; the diff of the file shows what changed.
 */
function writeAllowlist(): void {
  const entries = ALL.flatMap((file) =>
    functionsOf(file)
      .filter((fn) => fn.lines > MAX_FUNCTION_LINES)
      .map((fn) => [`${file}#${fn.name}`, fn.lines] as const),
  );
  writeFileSync(ALLOWLIST_FILE, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
}

describe('tidy', () => {
  it(`no line is longer than ${MAX_LINE} characters`, () => {
    const long = ALL.flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((text, i) => (text.length > MAX_LINE ? [`${file}:${i + 1} (${text.length})`] : [])),
    );
    assert.deepEqual(long, [], `lines over ${MAX_LINE} characters:\n${long.join('\n')}`);
  });

  it(`no new function over ${MAX_FUNCTION_LINES} lines; the allowlisted ones only shrink`, () => {
    if (process.env.TIDY_WRITE_ALLOWLIST === '1') writeAllowlist();
    const allowlist = JSON.parse(readFileSync(ALLOWLIST_FILE, 'utf8')) as Record<string, number>;
    const problems: string[] = [];
    const current = new Map<string, number>();
    for (const file of ALL) {
      for (const fn of functionsOf(file)) {
        const id = `${file}#${fn.name}`;
        current.set(id, fn.lines);
        if (fn.lines > MAX_FUNCTION_LINES && !(id in allowlist))
          problems.push(
            `${file}:${fn.line} ${fn.name} has ${fn.lines} lines (new functions: ${MAX_FUNCTION_LINES} at most)`,
          );
        else if (id in allowlist && fn.lines > (allowlist[id] ?? 0))
          problems.push(
            `${file}:${fn.line} ${fn.name} grew to ${fn.lines} lines (allowlisted at ${allowlist[id]}): shrink it`,
          );
      }
    }
    for (const [id, lines] of Object.entries(allowlist)) {
      const now = current.get(id);
      if (now === undefined) problems.push(`${id} is gone: remove it from test/tidy/long-functions.json`);
      else if (now <= MAX_FUNCTION_LINES) problems.push(`${id} is ${now} lines now: remove it from the allowlist`);
      else if (now < lines)
        problems.push(`${id} shrank to ${now} lines: lower its allowlist entry (${lines}) to ${now}`);
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('no `as any`, no @ts-ignore or @ts-nocheck anywhere; Date.now() only in the clock', () => {
    const problems: string[] = [];
    // This file spells the patterns it looks for, so it is the one file the rule does not read.
    const self = relative(ROOT, import.meta.filename);
    for (const file of ALL.filter((f) => f !== self)) {
      read(file)
        .split('\n')
        .forEach((text, i) => {
          const at = `${file}:${i + 1}`;
          if (/\bas any\b/.test(text)) problems.push(`${at} casts to any`);
          if (/@ts-(ignore|nocheck)/.test(text)) problems.push(`${at} silences the type checker`);
          if (file.startsWith('src/') && file !== 'src/domain/clock.ts' && /\bDate\.now\(/.test(text))
            problems.push(`${at} reads Date.now() outside src/domain/clock.ts (use the Ctx clock)`);
        });
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it("folders are made through store/folders.ts, never by Node's recursive mkdir (it can hang)", () => {
    const problems = SRC.filter((f) => f !== 'src/store/folders.ts')
      .filter((f) => /\bmkdir(Sync)?\([^)]*recursive: true/.test(read(f)))
      .map((f) => `${f} makes folders with a recursive mkdir; use makeFolders from src/store/folders.ts`);
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('services read wall time only where it is allowed, and say why', () => {
    const problems = SRC.filter((f) => f.startsWith('src/services/'))
      .filter((f) => /\bwallNowMs\(|\bclock\.nowMs\(/.test(read(f)))
      .filter((f) => !(f in WALL_CLOCK_IN_SERVICES))
      .map(
        (f) =>
          `${f} reads wall time; services stamp with scopeNowMs(ctx, scope), or add it to ` +
          `WALL_CLOCK_IN_SERVICES with a reason`,
      );
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('src/ imports form no cycle, and no layer imports one above it', () => {
    const graph = new Map(SRC.map((f) => [f, importsOf(f).filter((t) => t.startsWith('src/'))]));
    const problems: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (/^src\/(ledger|jobs|rails|webhooks)\//.test(file) && /^src\/(services|http)\//.test(target))
          problems.push(
            `${file} imports ${target}: ledger/, jobs/, rails/ and webhooks/ sit below services/ and http/`,
          );
        if (file.startsWith('src/domain/') && !target.startsWith('src/domain/'))
          problems.push(`${file} imports ${target}: domain/ is pure and imports only domain/`);
        if (file.startsWith('src/store/') && !/^src\/(store|domain)\//.test(target))
          problems.push(`${file} imports ${target}: store/ imports only store/ and domain/`);
        if (file.startsWith('src/wire/') && !/^src\/(wire|domain)\//.test(target))
          problems.push(`${file} imports ${target}: wire/ (the API's shapes) imports only wire/ and domain/`);
        if ((file.startsWith('src/services/') || file === 'src/platforms.ts') && target.startsWith('src/http/'))
          problems.push(`${file} imports ${target}: services sit below http/; the API's shapes are in wire/`);
      }
    }
    for (const file of SRC.filter((f) => f.startsWith('src/dashboard/'))) {
      for (const { target, typeOnly } of importsWithKindOf(file)) {
        if (target.startsWith('src/') && !typeOnly && !DASHBOARD_VALUES_FROM.test(target))
          problems.push(
            `${file} imports ${target}: the dashboard reads through services/ (from lower layers, types only)`,
          );
      }
    }
    // Depth-first search; a back edge is a cycle, reported with its path.
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open')
          problems.push(`import cycle: ${[...stack.slice(stack.indexOf(target)), target].join(' → ')}`);
        else if (!state.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('src/ holds no more `any` types and non-null assertions than test/tidy/ratchets.json allows', () => {
    const counts = { any: 0, nonNull: 0 };
    for (const file of SRC) {
      const found = looseTypesOf(file);
      counts.any += found.any;
      counts.nonNull += found.nonNull;
    }
    const allowed = JSON.parse(readFileSync(RATCHETS_FILE, 'utf8')) as typeof counts;
    const problems: string[] = [];
    const names = { any: '`any` types', nonNull: 'non-null assertions (`x!`)' };
    for (const key of ['any', 'nonNull'] as const) {
      if (counts[key] > allowed[key])
        problems.push(
          `src/ has ${counts[key]} ${names[key]}, more than the ${allowed[key]} allowed: name the type, or ` +
            'check the value (present() from domain/assert.ts) instead',
        );
      else if (counts[key] < allowed[key])
        problems.push(
          `src/ has ${counts[key]} ${names[key]}, fewer than ${allowed[key]}: lower "${key}" in ` +
            `test/tidy/ratchets.json to ${counts[key]}`,
        );
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  // Under Node 20, a failing message-less assert.ok makes Node build a message by parsing the call site's
  // source; on tsx-compiled TypeScript that parse can spin a core for minutes (delivery.test.ts did), so a
  // failing test hangs instead of failing. A message of our own skips that path, and says more.
  it('every assert() and assert.ok() in the tests carries a message', () => {
    const bare = ALL.filter((f) => f.startsWith('test/')).flatMap((file) => {
      const text = read(file);
      const found: string[] = [];
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (!node || typeof node !== 'object') return;
        const n = node as Node & {
          callee?: Node & { name?: string; object?: { name?: string }; property?: { name?: string } };
          arguments?: unknown[];
        };
        const callee = n.callee;
        const isOk =
          n.type === 'CallExpression' &&
          ((callee?.type === 'Identifier' && callee.name === 'assert') ||
            (callee?.type === 'MemberExpression' &&
              callee.object?.name === 'assert' &&
              callee.property?.name === 'ok'));
        if (isOk && (n.arguments?.length ?? 0) < 2) found.push(`${file}:${lineOf(text, n.start)}`);
        for (const [key, value] of Object.entries(n)) if (key !== 'type') visit(value);
      };
      visit(parseSync(file, text).program);
      return found;
    });
    assert.deepEqual(bare, [], `give these a message:\n${bare.join('\n')}`);
  });

  it('every file scripts/heavy-tests.txt leaves out of `npm run test:fast` is a test file that exists', () => {
    const listed = read('scripts/heavy-tests.txt')
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean);
    assert.ok(listed.length > 0, 'the list names the heavy files');
    const unknown = listed.filter((f) => !f.endsWith('.test.ts') || !ALL.includes(f));
    assert.deepEqual(unknown, [], `no such test file (moved or renamed?): fix scripts/heavy-tests.txt`);
    const twice = listed.filter((f, i) => listed.indexOf(f) !== i);
    assert.deepEqual(twice, [], 'listed twice');
  });

  it('tests reach node:test only through test/helpers/node-test.ts, which bounds every test', () => {
    const self = relative(ROOT, import.meta.filename);
    const direct = ALL.filter((f) => f.startsWith('test/') && f !== 'test/helpers/node-test.ts' && f !== self).filter(
      (f) => /from 'node:test'/.test(read(f)),
    );
    assert.deepEqual(direct, [], `import from '../helpers/node-test.ts' instead:\n${direct.join('\n')}`);
  });
});
