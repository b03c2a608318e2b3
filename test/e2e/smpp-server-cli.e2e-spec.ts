import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { CMD, connectNetSmppEsme, netSmppMissing, type NetSmppEsme } from '../support/net-smpp-esme.js';
import { startSmppServerApp } from '../support/smpp-server-app.js';
import { testEnv, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * The `smpp` commands (the built CLI, dist/cli.js, as an operator runs it) against two API
 * processes on one database and one Redis: credentials made by the CLI bind on either, the bind
 * cap holds across both, and `binds list` / `binds kick` see and end binds on both.
 */
const ESME_RBINDFAIL = 0x0d;
const ESME_RINVPASWD = 0x0e;
const run = promisify(execFile);
const missing = netSmppMissing();

describe.skipIf(missing)('SMPP server: CLI and two API processes', () => {
  const name = uniqueName();
  let a: TestApp & { smppPort: number };
  let b: TestApp & { smppPort: number };
  let tenant: Tenant;
  const open: NetSmppEsme[] = [];
  const connect = async (port: number) => {
    const e = await connectNetSmppEsme(port);
    open.push(e);
    return e;
  };
  const cli = async (line: string): Promise<{ code: number; stdout: string; json: any }> => {
    const env = { PATH: process.env.PATH ?? '', ...testEnv(name, { LOG_LEVEL: 'error' }) };
    try {
      const { stdout } = await run(process.execPath, ['dist/cli.js', ...line.split(/\s+/)], { env });
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      return { code: 0, stdout, json };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? 1, stdout: `${e.stdout ?? ''}${e.stderr ?? ''}`, json: undefined };
    }
  };

  beforeAll(async () => {
    a = await startSmppServerApp({ SMPP_SERVER_IDLE_SECONDS: '120' }, name);
    b = await startSmppServerApp({ SMPP_SERVER_IDLE_SECONDS: '15' }, name);
    tenant = await createTenant(a, { prices: { sms: '0.5' } });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(open.map((e) => e.close()));
    await b?.app.close();
    await a?.close();
  });

  it('credentials create prints the password once; list, update, password and revoke manage it', async () => {
    const created = await cli(
      `smpp credentials create --username ${tenant.username} --system-id cli1 --max-binds 2 --tps 50 --allow-ip 127.0.0.1 --json`,
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ system_id: 'cli1', mode: 'live', max_binds: 2, tps: 50 });
    expect(created.json.password).toMatch(/^[A-Za-z0-9]{8}$/);
    expect((await cli(`smpp credentials create --username ${tenant.username} --system-id cli1`)).code).toBe(
      1,
    );

    const listed = await cli(`smpp credentials list --username ${tenant.username} --json`);
    expect(listed.json.credentials).toEqual([
      expect.objectContaining({ system_id: 'cli1', allowed_ips: ['127.0.0.1'], status: 'active' }),
    ]);
    expect(JSON.stringify(listed.json)).not.toContain(created.json.password);
    const updated = await cli('smpp credentials update cli1 --tps 75 --clear-allow-ip --json');
    expect(updated.json).toMatchObject({ tps: 75, allowed_ips: [] });

    const e1 = await connect(a.smppPort);
    expect((await e1.bind('cli1', created.json.password)).status).toBe(0);
    const renewed = await cli('smpp credentials password cli1 --json');
    expect(renewed.json.password).not.toBe(created.json.password);
    expect((await (await connect(b.smppPort)).bind('cli1', created.json.password)).status).toBe(
      ESME_RINVPASWD,
    );
    expect((await (await connect(b.smppPort)).bind('cli1', renewed.json.password)).status).toBe(0);

    const revoked = await cli('smpp credentials revoke cli1 --json');
    expect(revoked.json).toMatchObject({ system_id: 'cli1', status: 'revoked' });
    // The revoke unbinds what was bound, and no bind is taken after it.
    expect((await e1.read(1)).pdus[0]?.cmd).toBe(CMD.unbind);
    expect((await (await connect(a.smppPort)).bind('cli1', renewed.json.password)).status).toBe(
      ESME_RBINDFAIL,
    );
  }, 120_000);

  it('caps binds across both processes, lists them with their process, and kicks them everywhere', async () => {
    const created = await cli(
      `smpp credentials create --username ${tenant.username} --system-id cli2 --max-binds 2 --json`,
    );
    const pw = created.json.password as string;
    const onA = await connect(a.smppPort);
    const onB = await connect(b.smppPort);
    expect((await onA.bind('cli2', pw)).status).toBe(0);
    expect((await onB.bind('cli2', pw, 'receiver')).status).toBe(0);
    expect((await (await connect(a.smppPort)).bind('cli2', pw)).status).toBe(ESME_RBINDFAIL);
    expect((await (await connect(b.smppPort)).bind('cli2', pw)).status).toBe(ESME_RBINDFAIL);

    // B unbinds a session silent for 15 s (the idle test below): these keep onB talking.
    expect((await onB.call('enquire_link')).cmd).toBe(CMD.enquire_link_resp);
    const listed = await cli(`smpp binds list --username ${tenant.username} --json`);
    expect(listed.json.binds).toHaveLength(2);
    expect(listed.json.binds.map((x: { type: string }) => x.type).sort()).toEqual([
      'receiver',
      'transceiver',
    ]);
    expect(listed.json.binds[0]).toMatchObject({ system_id: 'cli2', address: '127.0.0.1' });
    expect(listed.json.binds[0].process).toMatch(/:\d+$/);

    expect((await onB.call('enquire_link')).cmd).toBe(CMD.enquire_link_resp);
    const kicked = await cli('smpp binds kick cli2 --json');
    expect(kicked.json).toMatchObject({ system_id: 'cli2', kicked: 2, left: 0 });
    expect((await onA.read(1)).pdus[0]?.cmd).toBe(CMD.unbind);
    expect((await onB.read(1)).pdus[0]?.cmd).toBe(CMD.unbind);
    expect((await cli('smpp binds list --json')).json.binds).toEqual([]);
    // A kick is not a ban: the ESME binds again.
    expect((await (await connect(b.smppPort)).bind('cli2', pw)).status).toBe(0);
  }, 120_000);

  it('unbinds a session silent for SMPP_SERVER_IDLE_SECONDS', async () => {
    const created = await cli(
      `smpp credentials create --username ${tenant.username} --system-id cli3 --json`,
    );
    const e = await connect(b.smppPort);
    expect((await e.bind('cli3', created.json.password)).status).toBe(0);
    expect((await e.read(1)).pdus[0]?.cmd).toBe(CMD.unbind);
    const cli3Binds = async () =>
      (await cli('smpp binds list --json')).json.binds.filter(
        (x: { system_id: string }) => x.system_id === 'cli3',
      );
    await waitFor(async () => (await cli3Binds()).length === 0, 15_000, 'no bind of cli3');
  }, 60_000);
});
