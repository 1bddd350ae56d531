// The suite's only door to node:test. Node 20's `--test-timeout` bounds a whole file, not a test, so
// every test and hook gets its own bound here: one that hangs fails by name ("test timed out after N ms")
// while the rest of its file goes on. A test may still pass a timeout of its own.
import * as nodeTest from 'node:test';

/** Per test and per hook; generous for a loaded 2-core machine. TEST_TIMEOUT_MS overrides it. */
export const TEST_TIMEOUT_MS = Number(process.env.TEST_TIMEOUT_MS ?? 120_000);

type TestOptions = nodeTest.TestOptions;
type TestBody = nodeTest.TestFn;
type HookBody = nodeTest.HookFn;

function boundedTest(run: typeof nodeTest.it) {
  return (name: string, optionsOrBody?: TestOptions | TestBody, body?: TestBody) => {
    const options = typeof optionsOrBody === 'function' ? {} : (optionsOrBody ?? {});
    const fn = typeof optionsOrBody === 'function' ? optionsOrBody : body;
    // node:test schedules the test itself; the promise it returns is not the caller's to await.
    void run(name, { timeout: TEST_TIMEOUT_MS, ...options }, fn);
  };
}

function boundedHook(register: typeof nodeTest.before) {
  return (fn: HookBody, options: nodeTest.HookOptions = {}) => {
    register(fn, { timeout: TEST_TIMEOUT_MS, ...options });
  };
}

export const it = boundedTest(nodeTest.it);
export const test = it;
export const before = boundedHook(nodeTest.before);
export const after = boundedHook(nodeTest.after);
export const beforeEach = boundedHook(nodeTest.beforeEach);
export const afterEach = boundedHook(nodeTest.afterEach);
// A suite's own time is the sum of its tests', so suites are not bounded here (the file is, by the runner).
export function describe(name: string, optionsOrBody?: TestOptions | nodeTest.SuiteFn, body?: nodeTest.SuiteFn): void {
  void nodeTest.describe(name, optionsOrBody as TestOptions, body);
}
