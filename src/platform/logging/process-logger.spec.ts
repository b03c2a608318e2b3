import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * A child process logs a few megabytes through an asynchronous pino logger (its write is still
 * in flight when it decides to exit), then its 'exit' handler writes one last line
 * synchronously: every line must arrive, and that one last.
 */
async function lastLines(exitCall: string): Promise<{ lines: string[]; code: number | null }> {
  const script = `
    import { writeSync } from 'node:fs';
    import { pino } from 'pino';
    import { exitWhenWritten, flushSync } from './dist/platform/logging/process-logger.js';
    const app = pino();
    process.once('exit', () => { flushSync(app); writeSync(1, 'LAST\\n'); });
    const filler = 'x'.repeat(1000);
    for (let i = 0; i < 4000; i++) app.info({ i }, filler);
    // By then a write of the lines is in flight, held by the full pipe.
    setTimeout(() => ${exitCall}, 100);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  // Read slowly at first, so the pipe fills and the child's write stays in flight.
  child.stdout.pause();
  setTimeout(() => child.stdout.resume(), 600);
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  return { lines: out.split('\n').filter(Boolean), code };
}

describe('exitWhenWritten', () => {
  it('exits with the code once the asynchronous lines are written, so the exit line is the last', async () => {
    const { lines, code } = await lastLines('exitWhenWritten(app, 3)');
    expect(code).toBe(3);
    expect(lines.at(-1)).toBe('LAST');
    expect(lines.filter((l) => l.startsWith('{'))).toHaveLength(4000);
  });
});
