import v8 from 'node:v8'

/**
 * Bounds how far V8 grows the heap it holds past the live data after each full collection:
 * the next collection comes once the heap reaches `1 + percent/100` times what survived.
 *
 * Why: the service's live heap is small and steady (about 50 MB under load), but on a machine
 * with a lot of memory V8 lets its heap grow toward four times that before collecting, in
 * steps at its rare full collections, so under steady load RSS keeps climbing for minutes
 * (+18 to +25 % from the first to the second half of bench/load.ts's minute) without anything
 * being retained. At 50 % RSS stays flat (+2.4 to +6.7 % in the same bench) for more
 * frequent, short full collections. Unlike `--max-old-space-size` this sets no ceiling: a
 * burst that needs more heap still gets it. V8 reads the flag at each collection, so setting
 * it at start-up works like passing it on the command line. 0 leaves V8's default.
 */
export function boundHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`)
}
