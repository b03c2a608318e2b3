import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what was live after a full collection, in
 * percent. Left to itself V8 picks a factor of up to 4 while collections are cheap, and an
 * API answering a thousand requests a second, each of whose objects lives through a couple of
 * young collections while it waits for the group commit, promotes enough that the heap grows
 * toward 4 × its live size before the next full collection (about 390 MB of RSS under B1
 * against about 165 MB idle). Capped, RSS stays lower for a few more full collections
 * (measured on the 2-core bench machine under B1: at 100%, about 250 MB; at 60%, 220–250 MB;
 * at 40%, about 205 MB for some 15% more CPU per send than the default). 50% keeps a margin
 * under B4's 250 MB.
 */
export const HEAP_GROWING_PERCENT = 50;

// Applied when this module is evaluated: imported first by main.ts, before the modules whose
// loading fills the heap, so every limit V8 sets is set with it. V8 reads the flag each time it
// sets the next limit. A flag on the command line (`node --heap-growing-percent=…`) wins.
if (!process.execArgv.some((a) => a.startsWith('--heap-growing-percent')))
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
