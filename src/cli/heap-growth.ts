// How far V8 lets a server's old generation grow before its next full collection. By default V8 picks a
// growing factor between 1.1 and 4 after each full GC, 4 when its heap limit is large (4 GB on a machine
// with more than 16 GB of memory). Under load the server promotes many objects that die soon after (a
// request or a webhook delivery in flight lives through a few scavenges), so the old generation filled with
// such garbage to two or three times what was alive before V8 collected it: at the bench's saturation about
// 110 MB of old space for 40–55 MB alive, most of the peak RSS (docs/performance.md, "Peak RSS").
import { setFlagsFromString } from 'node:v8';

/**
 * The old generation may grow by this share of what survived the last full GC, then it is collected again.
 * Measured at saturation: it halves the old space at peak for a few more full GCs, whose pauses stay short
 * because they start from a small heap (docs/performance.md).
 */
export const SERVER_HEAP_GROWING_PERCENT = 20;

const OWN_FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * The V8 flag `payouts serve` sets, or undefined when node was started with a growing percent of its own
 * (`node --heap-growing-percent=N …`; NODE_OPTIONS cannot carry it): the operator's choice wins.
 */
export function heapGrowingFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((arg) => OWN_FLAG.test(arg))) return undefined;
  return `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`;
}

/**
 * Bounds the heap's growth in this process. V8 reads the flag at each full GC, so setting it after start
 * works; only the server calls it, not the test API's in-process server, whose host process is not ours.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  const flag = heapGrowingFlag(execArgv);
  if (flag) setFlagsFromString(flag);
}
