/**
 * How hard the fuzz suite pushes. `npm test` runs a fixed seed and a small number of runs so
 * the suite is repeatable and quick; `npm run fuzz` (test/fuzz/run.mjs) sets FUZZ_RUNS and a
 * fresh FUZZ_SEED. Replay a failure with the seed (and FUZZ_PATH) fast-check prints:
 *   FUZZ_SEED=123 FUZZ_PATH="4:1:0" FUZZ_RUNS=2000 npx vitest run test/e2e/fuzz.e2e-spec.ts
 */
function intFromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

export const FUZZ_SEED = intFromEnv('FUZZ_SEED') ?? 42;
/** Runs per property; each endpoint scales it (XML and the cheap GETs run more). */
export const FUZZ_RUNS = intFromEnv('FUZZ_RUNS') ?? 120;
export const FUZZ_PATH = process.env.FUZZ_PATH || undefined;
/** A request with no complete answer within this is a hang. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** fast-check parameters for a property scaled by `factor` of FUZZ_RUNS. */
export function fcParams(factor = 1): {
  seed: number;
  numRuns: number;
  path?: string;
  endOnFailure: boolean;
} {
  return {
    seed: FUZZ_SEED,
    numRuns: Math.max(1, Math.round(FUZZ_RUNS * factor)),
    path: FUZZ_PATH,
    endOnFailure: true,
  };
}

/** A per-test timeout large enough for the configured runs (about 60 ms a request, generously). */
export function testTimeout(factor = 1): number {
  return 30_000 + Math.round(FUZZ_RUNS * factor) * 250;
}
