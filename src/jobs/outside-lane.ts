/**
 * Where the worker runs the jobs that wait on the outside world (webhook POSTs). They used to run one at a
 * time inside the worker's pass, so under load each delivery paid the busy event loop's lag several
 * times over (its POST, its record, the next claim) and a server delivered a few events a second; one slow
 * receiver held up every job behind it. Here they run side by side, without holding the pass:
 * - at most `limit` at once, and at most `perScope` for one platform environment (one endpoint), so one
 *   slow receiver cannot take every slot;
 * - jobs with the same order key (a webhook's object) run one after another, in the order they came in,
 *   so an object's events leave in order without waiting on each other's retry timer.
 */
export interface LaneJob {
  /** Jobs with the same key never overlap and start in the order they were added. */
  orderKey: string;
  /** Jobs with the same scope share the per-scope limit. */
  scopeKey: string;
  run: () => Promise<void>;
}

interface Waiting extends LaneJob {
  done: () => void;
}

export class OutsideLane {
  private readonly waiting: Waiting[] = [];
  private readonly busyKeys = new Set<string>();
  private readonly runningPerScope = new Map<string, number>();
  private running = 0;
  private idleWaiters: Array<{ scope: (scopeKey: string) => boolean; resolve: () => void }> = [];

  /** `onRoom` is told when a job ends, so the worker can claim more at once instead of at its next poll. */
  constructor(
    private readonly limit: number,
    private readonly perScope: number,
    private readonly onRoom: () => void = () => undefined,
  ) {}

  /** Whether the worker should claim more outside work: what waits here stays within one more full lane. */
  hasRoom(): boolean {
    return this.waiting.length < this.limit;
  }

  /** Queues a job; the promise settles when it has run (a job's own failures are its `run`'s to handle). */
  add(job: LaneJob): Promise<void> {
    return new Promise((done) => {
      this.waiting.push({ ...job, done });
      this.pump();
    });
  }

  /**
   * Resolves when no job of the scopes `scope` accepts runs or waits: the worker stopping (every scope), a
   * drain of one platform (the sandbox clock: its delayed deliveries have happened when it returns).
   */
  idle(scope: (scopeKey: string) => boolean = () => true): Promise<void> {
    if (!this.busy(scope)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push({ scope, resolve }));
  }

  private busy(scope: (scopeKey: string) => boolean): boolean {
    return this.waiting.some((job) => scope(job.scopeKey)) || [...this.runningPerScope.keys()].some(scope);
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length && this.running < this.limit; ) {
      const job = this.waiting[i]!;
      const inScope = this.runningPerScope.get(job.scopeKey) ?? 0;
      // A busy key's later jobs stay behind it; scanning in order starts each key's oldest job first.
      if (this.busyKeys.has(job.orderKey) || inScope >= this.perScope) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.start(job, inScope);
    }
  }

  private start(job: Waiting, inScope: number): void {
    this.running++;
    this.busyKeys.add(job.orderKey);
    this.runningPerScope.set(job.scopeKey, inScope + 1);
    void job
      .run()
      .catch(() => undefined)
      .finally(() => {
        this.running--;
        this.busyKeys.delete(job.orderKey);
        const left = (this.runningPerScope.get(job.scopeKey) ?? 1) - 1;
        if (left === 0) this.runningPerScope.delete(job.scopeKey);
        else this.runningPerScope.set(job.scopeKey, left);
        job.done();
        this.pump();
        const settled = this.idleWaiters.filter((waiter) => !this.busy(waiter.scope));
        this.idleWaiters = this.idleWaiters.filter((waiter) => !settled.includes(waiter));
        for (const waiter of settled) waiter.resolve();
        this.onRoom();
      });
  }
}
