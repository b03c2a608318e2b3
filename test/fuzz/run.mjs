// `npm run fuzz`: the fuzz suite (test/e2e/fuzz.e2e-spec.ts) with many more cases and a fresh
// seed each time. FUZZ_RUNS (default 2000 per property) and FUZZ_SEED override; a failure
// prints the seed and path to replay it with (see test/fuzz/settings.ts).
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const seed = process.env.FUZZ_SEED || String(randomInt(1, 2 ** 31 - 1));
const runs = process.env.FUZZ_RUNS || '2000';
console.log(
  `fuzz: seed ${seed}, ${runs} runs per property; replay with FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz`,
);
const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const result = spawnSync(
  process.execPath,
  [vitest, 'run', 'test/e2e/fuzz.e2e-spec.ts', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs, FUZZ_STATS: '1' },
  },
);
process.exit(result.status ?? 1);
