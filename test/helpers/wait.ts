/** Generous enough for a loaded 2-core machine; a wait that runs out fails and says what it waited for. */
export const DEFAULT_WAIT_MS = 15_000;

/**
 * Polls `check` until it holds. Every wait in the suite goes through here, so none can spin forever
 * or end silently: running out of time throws `timed out after N ms waiting for <what>`.
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = DEFAULT_WAIT_MS,
  intervalMs = 20,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
