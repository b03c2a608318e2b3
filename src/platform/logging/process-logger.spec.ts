import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * A child process logs a megabyte through an asynchronous pino logger (its write is still in
 * flight when it decides to exit), then its 'exit' handler writes one last line synchronously:
 * every line must arrive, and that one last.
 *
 * The child's stdout is a non-blocking pipe (node makes it so), so each time the pipe is full
 * sonic-boom waits 100 ms before writing again: with a slow reader (a loaded machine) a few
 * megabytes can take longer than exitWhenWritten's default 5 s bound, and the exit would then
 * come from that bound with a write still in flight. The test gives it a bound far above what
 * the megabyte needs, so only the drain can end the child in time.
 */
async function lastLines(exitCall: string): Promise<{ lines: string[]; code: number | null }> {
  const script = `
    import { writeSync } from 'node:fs';
    import { pino } from 'pino';
    import { exitWhenWritten, flushSync } from './dist/platform/logging/process-logger.js';
    const app = pino();
    process.once('exit', () => { flushSync(app); writeSync(1, 'LAST\\n'); });
    const filler = 'x'.repeat(1000);
    for (let i = 0; i < 1000; i++) app.info({ i }, filler);
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
    const { lines, code } = await lastLines('exitWhenWritten(app, 3, 25_000)');
    expect(code).toBe(3);
    expect(lines.at(-1)).toBe('LAST');
    expect(lines.filter((l) => l.startsWith('{'))).toHaveLength(1000);
  });
});
