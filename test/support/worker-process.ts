import { spawn, type ChildProcess } from 'node:child_process';
import { killOnExit } from './local-state.js';
import { testEnv } from './test-env.js';

/**
 * A real worker process (`dist/worker.js`) on the suite's databases and queue prefix, for tests
 * that kill one mid-job. It is killed with the test process if the test forgets to.
 */
export function startWorkerProcess(name: string, overrides: Record<string, string>): ChildProcess {
  const env = { ...process.env, ...testEnv(name, { LOG_LEVEL: 'error', ...overrides }) };
  return killOnExit(spawn(process.execPath, ['dist/worker.js'], { env, stdio: 'ignore' }));
}

/**
 * The worker processes of one suite: `start` spawns one with `env()` (read when called, so it
 * may name peers started in beforeAll) and `killAll` ends every one it started.
 */
export function workerPool(name: string, env: () => Record<string, string>) {
  const workers: ChildProcess[] = [];
  return {
    start(): ChildProcess {
      const w = startWorkerProcess(name, env());
      workers.push(w);
      return w;
    },
    killAll(): void {
      for (const w of workers) w.kill('SIGKILL');
    },
  };
}
