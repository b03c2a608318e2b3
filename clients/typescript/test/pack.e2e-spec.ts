import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRequestCount } from '../../../test/support/probes.js';
import { startService, type RunningService } from './service.js';

const run = promisify(execFile);
const ROOT = new URL('../../../', import.meta.url).pathname;
const PACKAGE = join(ROOT, 'clients/typescript');
const NPM = { timeout: 150_000, maxBuffer: 16 * 1024 * 1024 };

const SEND = `
import { createClient, BulkMessagingError } from '@bulk-messaging/client';
const [baseUrl, apiKey] = process.argv.slice(2);
const api = createClient({ baseUrl, apiKey });
const sent = await api.sendSms({ from: 'ACME', to: ['260971234567'], message: 'From the tarball' });
const refused = await api.sendSms({ from: 'ACME', to: ['12'], message: 'x' }).catch((e) => e);
console.log(JSON.stringify({
  status: sent.data[0].status,
  message: (await api.getMessage(sent.data[0].message_id)).message_id === sent.data[0].message_id,
  refused: refused instanceof BulkMessagingError ? refused.code : String(refused),
}));
`;

/** Typed use of the package as its types say, compiled by tsc in the consumer's project. */
const TYPED = `
import { createClient, type SmsSendResult } from '@bulk-messaging/client';
const api = createClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'k' });
export const send = (): Promise<SmsSendResult> => api.sendSms({ from: 'ACME', to: '260971234567', message: 'hi' });
// @ts-expect-error: a send's body has no such field
export const wrong = () => api.sendSms({ from: 'ACME', to: '260971234567', mesage: 'hi' });
`;

/**
 * What a user does: `npm pack` the client, install the tarball into an empty project, and send.
 * npm prefers its cache (filled by the project's own install) and goes to the registry only
 * for what is not there.
 */
describe('the packed @bulk-messaging/client', () => {
  let s: RunningService;
  let dir: string;

  beforeAll(async () => {
    s = await startService();
    dir = mkdtempSync(join(tmpdir(), 'bm-client-'));
  });
  afterAll(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs from its tarball into an empty project, type-checks and sends', async () => {
    const packed = join(dir, 'packed');
    mkdirSync(packed);
    // The folder and the prefix are named, not taken from the working directory: under `npm test`
    // npm hands its children the root project's prefix. dist/ is built first, as prepack does.
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', PACKAGE], NPM);
    await run('npm', ['pack', PACKAGE, '--pack-destination', packed, '--ignore-scripts'], {
      cwd: PACKAGE,
      ...NPM,
    });
    const [tarball] = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
    expect(tarball).toMatch(/^bulk-messaging-client-.*\.tgz$/);

    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await run(
      'npm',
      [
        'install',
        '--prefix',
        project,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        join(packed, tarball),
      ],
      { cwd: project, ...NPM },
    );

    writeFileSync(join(project, 'typed.ts'), TYPED);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          strict: true,
          noEmit: true,
        },
        files: ['typed.ts'],
      }),
    );
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], NPM);

    const before = await sendRequestCount(s.t, s.tenant.account.id, 'sms');
    writeFileSync(join(project, 'send.mjs'), SEND);
    const { stdout } = await run(process.execPath, ['send.mjs', s.url, s.tenant.key], {
      cwd: project,
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      status: 'ACKNOWLEDGED',
      message: true,
      refused: 'VALIDATION_ERROR',
    });
    expect(await sendRequestCount(s.t, s.tenant.account.id, 'sms')).toBe(before + 1);
  }, 240_000);
});
