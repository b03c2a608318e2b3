import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { requestMessages } from '../support/message-probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const TEMPLATES = '/api/v1/json/templates';
const A = '260971000001';

describe('templates: /api/v1/json/templates and template_id on sends', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
    other = await createTenant(t);
  });
  afterAll(async () => t?.close());

  const http = (key = tenant.key) => ({
    post: (path: string, body: object) => t.http().post(path).set('X-API-Key', key).send(body),
    put: (path: string, body: object) => t.http().put(path).set('X-API-Key', key).send(body),
    get: (path: string) => t.http().get(path).set('X-API-Key', key),
    del: (path: string) => t.http().delete(path).set('X-API-Key', key),
  });

  it('creates, lists, reads, replaces and deletes a template', async () => {
    const created = await http().post(TEMPLATES, {
      name: 'reminder',
      channel: 'sms',
      body: 'Hi {{first_name}}, {{amount}} is due. {{first_name}}!',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      template_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'reminder',
      channel: 'sms',
      subject: null,
      body: 'Hi {{first_name}}, {{amount}} is due. {{first_name}}!',
      placeholders: ['first_name', 'amount'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.body.template_id as string;

    const list = await http().get(TEMPLATES);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, per_page: 100, total: 1 });
    expect(list.body.templates.map((x: { template_id: string }) => x.template_id)).toEqual([id]);

    expect((await http().get(`${TEMPLATES}/${id}`)).body.name).toBe('reminder');

    const replaced = await http().put(`${TEMPLATES}/${id}`, {
      name: 'reminder',
      channel: 'sms',
      body: 'Pay {{amount}}',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      template_id: id,
      body: 'Pay {{amount}}',
      placeholders: ['amount'],
    });

    const deleted = await http().del(`${TEMPLATES}/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ template_id: id, deleted: true });
    expect((await http().get(`${TEMPLATES}/${id}`)).status).toBe(404);
    expect((await http().del(`${TEMPLATES}/${id}`)).status).toBe(404);
  });

  it('refuses a second template with the same name in the account with 409 DUPLICATE_TEMPLATE_NAME', async () => {
    const body = { name: 'dup', channel: 'chat', body: 'x' };
    expect((await http().post(TEMPLATES, body)).status).toBe(201);
    const again = await http().post(TEMPLATES, body);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('DUPLICATE_TEMPLATE_NAME');
    // Another account may use the name.
    expect((await http(other.key).post(TEMPLATES, body)).status).toBe(201);
  });

  it('reports every problem of a bad template in one VALIDATION_ERROR', async () => {
    const res = await http().post(TEMPLATES, { name: '', channel: 'fax', body: '' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['name', 'channel', 'body']));
  });

  it('refuses a subject on an SMS template', async () => {
    const res = await http().post(TEMPLATES, { name: 's', channel: 'sms', body: 'x', subject: 'Hi' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: 'subject', message: 'only an e-mail template has a subject' },
    ]);
  });

  it("does not show, change or delete another account's template (404)", async () => {
    const mine = await http().post(TEMPLATES, { name: 'private', channel: 'sms', body: 'x' });
    const id = mine.body.template_id;
    expect((await http(other.key).get(`${TEMPLATES}/${id}`)).status).toBe(404);
    expect(
      (await http(other.key).put(`${TEMPLATES}/${id}`, { name: 'n', channel: 'sms', body: 'y' })).status,
    ).toBe(404);
    expect((await http(other.key).del(`${TEMPLATES}/${id}`)).status).toBe(404);
    const send = await http(other.key).post('/api/v1/json/bulk/sms', {
      from: 'ACME',
      to: A,
      template_id: id,
    });
    expect(send.status).toBe(400);
    expect(send.body.error.details).toEqual([
      {
        field: 'template_id',
        message: 'no template with this id for this key (live and test keys have their own templates)',
      },
    ]);
  });

  it('answers 404 for an id that is not a template id at all', async () => {
    const res = await http().get(`${TEMPLATES}/not-a-uuid`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('sends an SMS from a template with variables; the message keeps its text after the template changes', async () => {
    const tpl = await http().post(TEMPLATES, { name: 'sms-send', channel: 'sms', body: 'Hi {{n}}' });
    const res = await http().post('/api/v1/json/bulk/sms', {
      from: 'ACME',
      to: A,
      template_id: tpl.body.template_id,
      variables: { [A]: { n: 'Jane' } },
    });
    expect(res.status).toBe(200);
    await http().put(`${TEMPLATES}/${tpl.body.template_id}`, {
      name: 'sms-send',
      channel: 'sms',
      body: 'Changed',
    });
    const [row] = await requestMessages(t, res.body.api_reference, 'body');
    expect(row.body).toBe('Hi Jane');
  });

  it("sends an e-mail from a template with the template's subject, or the send's own", async () => {
    const tpl = await http().post(TEMPLATES, {
      name: 'mail',
      channel: 'email',
      subject: 'Statement for {{n}}',
      body: '<p>{{n}}</p>',
    });
    const base = {
      from: 'news@acme.example',
      to: 'jane@example.com',
      template_id: tpl.body.template_id,
      variables: { 'jane@example.com': { n: 'Jane' } },
    };
    const own = await http().post('/api/v1/json/bulk/email', base);
    const given = await http().post('/api/v1/json/bulk/email', { ...base, subject: 'Hello {{n}}' });
    expect(own.status).toBe(200);
    expect(given.status).toBe(200);
    const subjectOf = async (ref: string) => (await requestMessages(t, ref, 'subject'))[0].subject;
    expect(await subjectOf(own.body.api_reference)).toBe('Statement for Jane');
    expect(await subjectOf(given.body.api_reference)).toBe('Hello Jane');
  });

  it('refuses a template of another channel, and a template_id given with a message', async () => {
    const tpl = await http().post(TEMPLATES, { name: 'chat-only', channel: 'chat', body: 'x' });
    const wrong = await http().post('/api/v1/json/bulk/sms', {
      from: 'ACME',
      to: A,
      template_id: tpl.body.template_id,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details).toEqual([
      { field: 'template_id', message: 'is a chat template; this is a sms send' },
    ]);
    const both = await http().post('/api/v1/json/bulk/sms', {
      from: 'ACME',
      to: A,
      message: 'x',
      template_id: tpl.body.template_id,
    });
    expect(both.status).toBe(400);
    expect(both.body.error.details).toEqual([
      { field: 'message', message: 'give either template_id or message, not both' },
    ]);
  });
});
