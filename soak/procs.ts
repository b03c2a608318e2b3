import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, sleep } from '../test/support/local-state.js';

export { freePort, sleep };

/** The processes of the soak: API and worker processes of dist/, their output in log files. */
export interface Proc {
  name: string;
  child: ChildProcess;
  /** Set when it exited; an exit before stop() is a crash the soak reports. */
  exited?: { code: number | null; signal: NodeJS.Signals | null; expected: boolean };
}

export function startProc(name: string, script: string, env: Record<string, string>, logDir: string): Proc {
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(join(logDir, `${name}.log`));
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const proc: Proc = { name, child };
  child.once('exit', (code, signal) => {
    proc.exited = { code, signal, expected: proc.exited?.expected ?? false };
  });
  return proc;
}

/** SIGTERM (a graceful shutdown), SIGKILL after 30 s. */
export async function stopProc(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.exited = { code: null, signal: null, expected: true };
  await new Promise<void>((resolve) => {
    const t = setTimeout(() => p.child.kill('SIGKILL'), 30_000);
    p.child.once('exit', (code, signal) => {
      clearTimeout(t);
      p.exited = { code, signal, expected: true };
      resolve();
    });
    p.child.kill('SIGTERM');
  });
}

export async function waitHttp(url: string, ms = 90_000, proc?: Proc): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (proc?.exited)
      throw new Error(
        `${proc.name} exited (${proc.exited.code ?? proc.exited.signal}) before ${url} answered`,
      );
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      /* not up yet */
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer 200 within ${ms} ms`);
}

/** `node dist/cli.js … --json`, parsed; rejects with its stderr on a non-zero exit. */
export function cli(env: Record<string, string>, ...args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['dist/cli.js', ...args, '--json'],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`cli ${args.join(' ')} failed: ${stderr || err.message}`));
        try {
          resolve(stdout.trim() ? JSON.parse(stdout) : {});
        } catch {
          reject(new Error(`cli ${args.join(' ')}: not JSON: ${stdout.slice(0, 200)}`));
        }
      },
    );
  });
}
