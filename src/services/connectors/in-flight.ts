// The bound on calls to one connector at once (its `maxInFlight` in CONNECTORS_FILE), per server process: an
// adapter in front of a bank with a small connection pool, or a rate limit, is never sent more than that. A
// call over the bound waits its turn: a job runs again shortly (it never fails for it), a caller that cannot
// be put off (a cancel, asked for by a request) waits in line, for a bounded time.

/** How long a job over the bound waits before it runs again, and the spread that keeps jobs from herding. */
export const BUSY_RETRY_MS = 100;
export const BUSY_JITTER_MS = 150;
/** Callers waiting in line at most; past it, the call is put off as if its wait had run out. */
const MAX_WAITING = 1000;

export class InFlightBound {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number) {}

  /** A slot now, or false when `max` calls are in flight. */
  tryTake(): boolean {
    if (this.inFlight >= this.max) return false;
    this.inFlight++;
    return true;
  }

  /** A slot within `timeoutMs`, or false. */
  take(timeoutMs: number): Promise<boolean> {
    if (this.tryTake()) return Promise.resolve(true);
    if (this.waiting.length >= MAX_WAITING) return Promise.resolve(false);
    return new Promise((resolve) => {
      const turn = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      }, timeoutMs);
      this.waiting.push(turn);
    });
  }

  /** Gives a slot back: to the first caller in line (the count stays), else to the pool. */
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }

  /** Runs `call` in a slot taken at once, or answers undefined when there is none. */
  async tryRun<T>(call: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (!this.tryTake()) return undefined;
    try {
      return { value: await call() };
    } finally {
      this.give();
    }
  }
}
