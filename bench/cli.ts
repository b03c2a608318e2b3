import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { dropBenchState, median, type BenchRow } from './lib.js';

/**
 * CLI: the CPU time of one admin command, the process's own (user + system, as
 * process.cpuUsage() reads it when the process exits), so a busy machine slows the wall clock
 * but hardly the figure. Help is answered from the build's snapshot; a command that reads the
 * database runs from the build's bundle of the command path (dist/cli-bundle/: Nest, TypeORM and
 * its group's commands). Baseline: `node -e 0` measured the same way.
 */
export async function benchCli(quick: boolean): Promise<BenchRow[]> {
  const name = `bench_cli_${process.pid}`;
  const file = join(tmpdir(), `bench-cli-cpu-${process.pid}`);
  // Loaded before the script: what the process spent, written when it exits (the CLI exits explicitly).
  const probe = `data:text/javascript,${encodeURIComponent(
    `import{writeFileSync}from'node:fs';process.on('exit',()=>{const u=process.cpuUsage();writeFileSync(${JSON.stringify(file)},String((u.user+u.system)/1000))});`,
  )}`;
  const env = { ...process.env, DATABASE_URL: `mysql://root@127.0.0.1:3306/${name}`, LOG_LEVEL: 'error' };
  const cpuOf = (args: string[]) => {
    const ms: number[] = [];
    for (let i = 0; i < (quick ? 3 : 7); i++) {
      rmSync(file, { force: true });
      try {
        execFileSync(process.execPath, ['--import', probe, ...args], { env, stdio: 'ignore' });
      } catch {
        // A usage error (exit 2) is an answer too; its time is in the file all the same.
      }
      ms.push(Number(readFileSync(file, 'utf8')));
    }
    return median(ms);
  };
  const db = await createConnection({ host: '127.0.0.1', user: 'root' });
  try {
    execFileSync(process.execPath, ['dist/cli.js', 'db', 'migrate'], { env, stdio: 'ignore' });
    execFileSync(
      process.execPath,
      ['dist/cli.js', 'accounts', 'create', '--username', 'bench', '--password', 'load-test-secret-1'],
      { env, stdio: 'ignore' },
    );
    const node = cpuOf(['-e', '0']);
    const help = cpuOf(['dist/cli.js', '--help']);
    const commandHelp = cpuOf(['dist/cli.js', 'keys', 'create', '--help']);
    const list = cpuOf(['dist/cli.js', 'accounts', 'list', '--json']);
    const show = cpuOf(['dist/cli.js', 'accounts', 'show', 'bench', '--json']);
    const row = (metric: string, value: number, limit: number): BenchRow => ({
      id: 'CLI',
      metric,
      value,
      unit: 'ms CPU',
      baseline: Math.round(node),
      ratio: Math.round((value / node) * 10) / 10,
      bar: `≤ ${limit} ms CPU`,
      ok: value <= limit,
    });
    return [
      row('cli --help (no database)', help, 300),
      row('cli keys create --help (no database)', commandHelp, 300),
      row('cli accounts list --json (database)', list, 1000),
      row('cli accounts show U --json (database)', show, 1000),
    ];
  } finally {
    rmSync(file, { force: true });
    await dropBenchState(db, name);
    await db.end();
  }
}
