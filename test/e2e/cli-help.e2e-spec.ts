import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { HelpSnapshot } from '../../src/platform/cli/help-snapshot.js';
import { runCli, type CliRun } from '../support/cli-in-process.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
// Written by the build beside dist/cli.js (npm test builds first).
const SNAPSHOT = new URL('../../dist/cli-help.json', import.meta.url);

function binary(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 25_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/**
 * `node dist/cli.js` answers help from a snapshot written at build time, without loading Nest
 * or any command; it must print exactly what the full CLI prints, on the same stream, with the
 * same exit code, for the program and every group and command.
 */
describe('admin CLI help from the build snapshot', () => {
  const snapshot = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as HelpSnapshot;

  it('prints what the full CLI prints, on the same stream and with the same exit code, for each form of asking', async () => {
    for (const args of [
      [],
      ['--help'],
      ['-h'],
      ['help'],
      ['accounts'],
      ['help', 'keys'],
      ['keys', 'create', '-h'],
    ]) {
      const [fast, full] = [await binary(args), await runCli({ LOG_LEVEL: 'silent' }, args)];
      expect(fast, args.join(' ')).toEqual(full);
      expect(fast.stdout + fast.stderr, args.join(' ')).toMatch(/^Usage: cli /);
    }
  }, 120_000);

  it('holds, for every group and command, the text its --help prints in full (added text included)', async () => {
    const paths = Object.keys(snapshot.texts).filter(Boolean);
    expect(paths.length).toBeGreaterThan(40);
    for (const path of paths) {
      const full = await runCli({ LOG_LEVEL: 'silent' }, [...path.split(' '), '--help']);
      expect(snapshot.texts[path].split('__program__').join('cli'), path).toBe(full.stdout);
    }
  }, 120_000);

  it('goes the full way for anything but help: an unknown command is still a usage error', async () => {
    const run = await binary(['nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'nope'");
  });
});
