import { PassThrough } from 'node:stream';
import PinoPretty from 'pino-pretty';
import { describe, expect, it } from 'vitest';
import { PRETTY_OPTIONS } from './log-options.js';

describe('pretty log lines', () => {
  it('carry no ANSI escape codes when standard output is not a terminal (a file, a pipe)', async () => {
    expect(process.stdout.isTTY).not.toBe(true); // as under the test runner, or `npm start > file`
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const pretty = PinoPretty({ ...PRETTY_OPTIONS, destination: out, sync: true });
    pretty.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: 'hello', context: 'Test' })}\n`);
    await new Promise((r) => setImmediate(r));
    expect(text).toContain('[Test] hello');
    expect(text).not.toMatch(/\u001b\[/);
  });
});
