import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what was live after a full collection, in
 * percent: capped so that the API's RSS under load stays well under 250 MB (docs/decisions/v8-flags.md).
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Pretenuring is off: literals tenured while a process warms up keep every request's objects
 * alive into the old generation for the process's whole life (docs/decisions/v8-flags.md).
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

// Applied when this module is evaluated, which main.ts does before it loads the app: flags set
// after the app's modules are compiled do not stop pretenuring. A flag on the command line wins.
for (const flag of flagsToSet(process.execArgv)) setFlagsFromString(flag);
