/**
 * Upkeep that belongs to no job (purging rows past their keeping time, vacuuming the job table): each
 * worker process runs what is due after a background pass. A chore must be safe to run in several
 * processes at once; one that fails is logged and runs again when it is next due.
 */
import type { Clock } from '../domain/clock.ts';
import type { Logger } from './run-job.ts';

interface Chore {
  due: (nowMs: number) => boolean;
  run: () => Promise<unknown>;
}

export class Chores {
  private readonly chores: Chore[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Due at the first pass, then once `intervalMs` has gone by since it last started. */
  every(intervalMs: number, run: () => Promise<unknown>): void {
    let nextAtMs = 0;
    this.chores.push({
      due: (nowMs) => nowMs >= nextAtMs,
      run: () => {
        nextAtMs = this.clock.nowMs() + intervalMs;
        return run();
      },
    });
  }

  /** Due once `count()` has grown by `step` since it last started (vacuum after so many claims). */
  afterEach(step: number, count: () => number, run: () => Promise<unknown>): void {
    let countAtLast = 0;
    this.chores.push({
      due: () => count() - countAtLast >= step,
      run: () => {
        countAtLast = count();
        return run();
      },
    });
  }

  /** Runs the chores that are due, one after another. */
  async runDue(): Promise<void> {
    for (const chore of this.chores) {
      if (!chore.due(this.clock.nowMs())) continue;
      try {
        await chore.run();
      } catch (err) {
        this.log.error({ err }, 'worker upkeep failed; it runs again at its next interval');
      }
    }
  }
}
