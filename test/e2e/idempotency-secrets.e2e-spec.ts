import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubaccount, createTenant } from '../factories/account.factory.js';
import { idempotencyFingerprint } from '../../src/modules/idempotency/fingerprint.js';
import { apiKeysNamed } from '../support/account-probes.js';
import { sendRequestCount } from '../support/probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SUBS = '/api/v1/json/subaccounts';
const CHAT = '/api/v1/json/bulk/chat';
const SERVER_SECRET = 'idempotency-secrets-e2e-0123456789abcdef';

/** What the table holds of one key, every column as text: a secret anywhere in it would show. */
async function keptRow(t: TestApp, accountId: string, key: string): Promise<Record<string, string | null>> {
  // The table is the subject here: what is kept, byte for byte.
  const rows = (await t.ds.query(
    `SELECT fingerprint, status, content_type, body, send_request_id
       FROM idempotency_keys WHERE account_id = ? AND idempotency_key = ?`,
    [accountId, key],
  )) as Array<Record<string, Buffer | string | number | null>>;
  expect(rows).toHaveLength(1);
  return Object.fromEntries(
    Object.entries(rows[0]!).map(([k, v]) => [
      k,
      v === null
        ? null
        : Buffer.isBuffer(v)
          ? k === 'fingerprint'
            ? v.toString('hex')
            : v.toString('utf8')
          : String(v),
    ]),
  );
}

describe('Idempotency-Key: no secret kept, keyed fingerprints without passwords', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ SERVER_SECRET });
  }, 60_000);
  afterAll(async () => t?.close());

  /** A parent, its sub-account, and the parent's creation of a key for it under one Idempotency-Key. */
  async function keyCreation(idempotencyKey: string, name: string) {
    const parent = await createTenant(t);
    const child = await createSubaccount(t, parent);
    const create = () =>
      t
        .http()
        .post(`${SUBS}/${child.username}/keys`)
        .set('X-API-Key', parent.key)
        .set('Idempotency-Key', idempotencyKey)
        .send({ name });
    return { parent, child, create };
  }

  it('keeps the answer of a new sub-account key without its secret, and a replay is 409 SECRET_SHOWN_ONCE naming the key', async () => {
    const { parent, child, create } = await keyCreation('new-key-1', 'shop');
    const first = await create();
    expect(first.status).toBe(201);
    const secret = first.body.key as string;
    expect(secret).toMatch(/^bmk_/);

    const row = await keptRow(t, parent.account.id, 'new-key-1');
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret.slice(4));
    expect(JSON.parse(row.body!)).toEqual({ ...first.body, key: undefined });

    const again = await create();
    expect(again.status).toBe(409);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.error.code).toBe('SECRET_SHOWN_ONCE');
    expect(again.body.message).toContain(`created key ${first.body.id as string}`);
    expect(again.text).not.toContain(secret);
    // Nothing made twice.
    expect(await apiKeysNamed(t, 'shop', child.account.id, 'id')).toEqual([{ id: first.body.id }]);
  });

  it('a replay after the key is revoked does not hand out the secret nor call the key active', async () => {
    const { parent, child, create } = await keyCreation('revoked-then-replayed', 'till');
    const first = await create();
    expect(first.status).toBe(201);
    const revoked = await t
      .http()
      .delete(`${SUBS}/${child.username}/keys/${first.body.id as string}`)
      .set('X-API-Key', parent.key);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');

    const replay = await create();
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('SECRET_SHOWN_ONCE');
    expect(replay.text).not.toContain(first.body.key as string);
    expect(replay.text).not.toContain('"active"');
    // The secret, once revoked, opens nothing either.
    const balance = await t
      .http()
      .get('/api/v1/json/balance')
      .set('X-API-Key', first.body.key as string);
    expect(balance.status).toBe(401);
  });

  it('replays two chat sends that differ only in password as the same request, and keeps no password in the fingerprint', async () => {
    const tenant = await createTenant(t, { balances: { chat: '100' }, prices: { chat: '0.5' } });
    const body = (password: string) => ({
      username: tenant.username,
      password,
      senderid: 260971000000,
      message: 'Hello',
      recipient: ['260971234567'],
    });
    const send = (password: string) =>
      t.http().post(CHAT).set('X-API-Key', tenant.key).set('Idempotency-Key', 'chat-1').send(body(password));
    const first = await send(tenant.password);
    expect(first.status).toBe(200);
    const again = await send(`${tenant.password}-typed-differently`);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await sendRequestCount(t, tenant.account.id)).toBe(1);

    const row = await keptRow(t, tenant.account.id, 'chat-1');
    const withoutPassword = idempotencyFingerprint(SERVER_SECRET, 'POST', CHAT, body('any other'));
    expect(row.fingerprint).toBe(withoutPassword.toString('hex'));
    expect(JSON.stringify(row)).not.toContain(tenant.password);
  });

  it('keys the fingerprint with SERVER_SECRET: another secret, or none, gives another digest of the same request', async () => {
    const tenant = await createTenant(t);
    const parent = await createTenant(t);
    const body = { username: `acme_${tenant.username.slice(-6)}`, name: 'Shop' };
    const res = await t
      .http()
      .post(SUBS)
      .set('X-API-Key', parent.key)
      .set('Idempotency-Key', 'fp-1')
      .send(body);
    expect(res.status).toBe(201);
    const stored = (await keptRow(t, parent.account.id, 'fp-1')).fingerprint;
    const ours = idempotencyFingerprint(SERVER_SECRET, 'POST', SUBS, body).toString('hex');
    const another = idempotencyFingerprint(`${SERVER_SECRET}-rotated`, 'POST', SUBS, body).toString('hex');
    const plain = createHash('sha256')
      .update(`POST ${SUBS}\n${JSON.stringify(body)}`)
      .digest('hex');
    expect(stored).toBe(ours);
    expect(another).not.toBe(ours);
    expect(plain).not.toBe(ours);
  });
});
