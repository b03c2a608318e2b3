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

/**
 * V8's allocation-site pretenuring is off. V8 watches the object and array literals of
 * optimised code, and a literal whose objects mostly survive a young collection is from then on
 * allocated straight in the old generation. While a process warms up its young generation is
 * small and nearly everything survives, so some literals of the request path were tenured; each
 * such object then held the young objects of its request (the request, the response, their
 * headers), which young collections must keep while anything old points at them, so they were
 * promoted too, their survival kept the literals tenured, and the process stayed so. About one
 * API process in two under B1 did: 7–8% of what it allocated promoted instead of 2%, a full
 * collection every 0.4 s instead of every 1–1.5 s, and the latency of the requests they paused.
 * Without it, every process settles at about 2% within seconds of its first load.
 */
export const V8_FLAGS = [
  `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
  '--no-allocation-site-pretenuring',
];

/** The flags of V8_FLAGS that the command line does not set already (either way: `--x` or `--no-x`). */
export function flagsToSet(execArgv: readonly string[]): string[] {
  const name = (flag: string) =>
    flag
      .replace(/=.*$/, '')
      .replace(/_/g, '-')
      .replace(/^--(no-)?/, '');
  const given = new Set(execArgv.filter((a) => a.startsWith('--')).map(name));
  return V8_FLAGS.filter((flag) => !given.has(name(flag)));
}

// Applied when this module is evaluated: main.ts imports it before it loads the app, so the
// app's code is compiled, and every heap limit set, with these flags. Set from a module the app
// imports statically (all of them are compiled before any runs), pretenuring went on regardless
// (`node --trace-pretenuring` shows its decisions). A flag on the command line wins.
for (const flag of flagsToSet(process.execArgv)) setFlagsFromString(flag);
