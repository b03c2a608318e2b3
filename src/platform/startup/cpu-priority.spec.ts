import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const linux = process.platform === 'linux';

/** A fresh Node process (the build's module) that lowers its priority, starts a thread and reports every thread's niceness. */
function nicenessAfter(nice: number): number[] {
  const script = `
    const { lowerCpuPriority } = await import('./dist/platform/startup/cpu-priority.js');
    const { readdirSync, readFileSync } = await import('node:fs');
    const { gzip } = await import('node:zlib');
    await new Promise((r) => gzip('warm the thread pool', r));
    lowerCpuPriority(${nice});
    const { Worker } = await import('node:worker_threads');
    const w = new Worker('setTimeout(() => {}, 500)', { eval: true });
    await new Promise((r) => w.once('online', r));
    const niceOf = (tid) => Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16]);
    console.log(JSON.stringify(readdirSync('/proc/self/task').map(niceOf)));
    await w.terminate();
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as number[];
}

describe('lowerCpuPriority', () => {
  it.runIf(linux)('sets every thread of the process, those already running and those started after', () => {
    const own = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[16]);
    expect(readdirSync('/proc/self/task').length).toBeGreaterThan(0);
    const threads = nicenessAfter(Math.max(own, 7));
    // Node's main thread, its V8 platform threads, the thread pool (warmed before) and a worker.
    expect(threads.length).toBeGreaterThan(5);
    expect(new Set(threads)).toEqual(new Set([Math.max(own, 7)]));
  });

  it.runIf(linux)('leaves the process as it is at 0', () => {
    const own = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[16]);
    expect(new Set(nicenessAfter(0))).toEqual(new Set([own]));
  });
});
