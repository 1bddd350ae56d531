// bench:lab:profile's perf view: each on-CPU sample of a loaded server goes to the code that asked for the work.
// The input is what `perf script -F tid,ip,sym,dso` prints for a server started with --perf-basic-prof.
import assert from 'node:assert/strict';
import { GC, OTHER_THREADS, OUTSIDE_JS, SQLITE, samplesByArea } from '../../bench/lab/lib/perf-samples.ts';
import { describe, it } from '../helpers/node-test.ts';

const MAIN = 700;
const sample = (tid: number, ...frames: string[]) => [` ${tid} `, ...frames.map((f) => `\t  ffff ${f}`)].join('\n');

const script = [
  // A socket write the pg driver asked for, through Node's stream code: pg's, in the kernel.
  sample(
    MAIN,
    'tcp_sendmsg ([kernel.kallsyms])',
    '__GI___writev (/usr/lib/x86_64-linux-gnu/libc.so.6)',
    'JS:*clearBuffer node:internal/streams/writable:744:21 (/tmp/perf-700.map)',
    'JS:*_pulseQueryQueue /srv/app/node_modules/pg/lib/client.js:616:19 (/tmp/perf-700.map)',
    'JS:*processTicksAndRejections node:internal/process/task_queues:67:35 (/tmp/perf-700.map)',
  ),
  // The service's own function, built to dist/.
  sample(
    MAIN,
    'Builtins_LoadIC (/usr/bin/node)',
    'JS:*toTransaction file:///srv/app/dist/services/transactions/queries.js:8:30 (/tmp/perf-700.map)',
  ),
  // Promise machinery with no code of the service's on the stack: Node's own.
  sample(
    MAIN,
    'Builtins_FulfillPromise (/usr/bin/node)',
    'JS:*processTicksAndRejections node:internal/process/task_queues:67:35 (/tmp/perf-700.map)',
  ),
  // SQLite's work inside a statement the store called.
  sample(
    MAIN,
    'sqlite3VdbeExec (/srv/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node)',
    'JS:*executeQuery file:///srv/app/src/store/db.ts:118:3 (/tmp/perf-700.map)',
  ),
  // The event loop waiting on and reading sockets, no JavaScript on the stack.
  sample(MAIN, 'do_epoll_wait ([kernel.kallsyms])', 'uv__io_poll (/usr/bin/node)'),
  sample(
    MAIN,
    'v8::internal::Scavenger::ScavengeObject (/usr/bin/node)',
    'v8::internal::Heap::Scavenge (/usr/bin/node)',
  ),
  // Another thread of the process: V8's helpers.
  sample(MAIN + 3, 'v8::internal::ConcurrentMarking::RunMajor (/usr/bin/node)'),
].join('\n\n');

describe('perf samples by area', () => {
  const areas = samplesByArea(script, MAIN);
  const of = (area: string) => areas.get(area) ?? { samples: 0, kernel: 0 };

  it('gives a socket write to the driver that asked for it, kernel time marked', () => {
    assert.deepEqual(of('PostgreSQL driver (pg)'), { samples: 1, kernel: 1 }, 'the write is pg’s, in the kernel');
    assert.deepEqual(of('HTTP and sockets'), { samples: 0, kernel: 0 }, 'not Node’s stream code');
  });

  it('knows the service’s code from the build as from the sources', () => {
    assert.deepEqual(of('service, ledger and domain logic'), { samples: 1, kernel: 0 }, 'dist/services');
  });

  it('counts SQLite’s own work apart from the store that called it', () => {
    assert.deepEqual(of(SQLITE), { samples: 1, kernel: 0 }, 'the library');
    assert.deepEqual(of('store (driver glue, group commit)'), { samples: 0, kernel: 0 }, 'not the glue');
  });

  it('keeps the event loop, collections, Node’s promises and other threads apart', () => {
    assert.deepEqual(of(OUTSIDE_JS), { samples: 1, kernel: 1 }, 'epoll');
    assert.deepEqual(of(GC), { samples: 1, kernel: 0 }, 'a scavenge');
    assert.deepEqual(of('Node internals (timers, promises, events)'), { samples: 1, kernel: 0 }, 'promises');
    assert.deepEqual(of(OTHER_THREADS), { samples: 1, kernel: 0 }, 'another thread');
    const total = [...areas.values()].reduce((sum, a) => sum + a.samples, 0);
    assert.equal(total, 7, 'every sample counted once');
  });
});
