#!/usr/bin/env node
// `npm start` builds only when something the build reads is newer than the last complete build
// (dist/cli-help.json is its last step), so a start after an unchanged checkout takes no compile.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const INPUTS = [
  'src',
  'scripts/bundle-cli.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
const LAST_OUTPUT = 'dist/cli-help.json';

/** The newest modification time under a path; directories count too (a deleted file changes its folder). */
function newest(path) {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  let latest = s.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const built = statSync(LAST_OUTPUT, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (Math.max(...INPUTS.map(newest)) > built) {
  // The build takes a while (about 20 s on two cores) and prints nothing: say what the wait is.
  console.error(
    built === 0
      ? 'building the service into dist/ (first start; about 20 s)…'
      : 'building the service into dist/ (the sources changed since the last build; about 20 s)…',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, ['run', 'build', '--silent'], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
