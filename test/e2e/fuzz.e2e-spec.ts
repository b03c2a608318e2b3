import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import {
  bigArrayBodyText,
  contentEncoding,
  deepJsonText,
  jsonContentType,
  jsonString,
  jsonValueText,
  nastyString,
  objectBodyText,
  POLLUTION_MARK,
  rawBody,
  type FieldSpec,
} from '../fuzz/arbitraries.js';
import { messageIdSegment, messageListQuery } from '../fuzz/query-arbitraries.js';
import { xmlBodyText, xmlContentType } from '../fuzz/xml-arbitraries.js';
import {
  expectBalanceSuccess,
  expectChatSuccess,
  expectEmailSuccess,
  expectJsonError,
  expectSmsSuccess,
  expectXmlError,
  expectXmlSuccess,
  shortRepr,
} from '../fuzz/expectations.js';
import { listen, rawRequest, type RawResponse } from '../fuzz/raw-http.js';
import { fcParams, FUZZ_RUNS, FUZZ_SEED, REQUEST_TIMEOUT_MS, testTimeout } from '../fuzz/settings.js';
import { ledgerEntries } from '../support/account-probes.js';
import {
  allRequestsCount,
  requestIdsWithMessages,
  requestsById,
  requestsOf,
} from '../support/message-probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Property-based fuzzing of every endpoint (fast-check). Whatever the body, header or byte
 * soup, the answer is a 200 in the endpoint's shape or a 4xx in the error envelope (in XML on the XML route): never a 5xx, never a hang, and a refused request leaves
 * no send request, message, charge or queued job behind. Fixed seed under `npm test`;
 * `npm run fuzz` runs many more cases with a fresh seed (test/fuzz/settings.ts).
 */

/** Outcomes per answer code, printed with FUZZ_STATS=1 (npm run fuzz) to see what the generators reach. */
class Tally {
  private readonly counts = new Map<string, number>();
  add(code: string): void {
    this.counts.set(code, (this.counts.get(code) ?? 0) + 1);
  }
  print(label: string): void {
    if (!process.env.FUZZ_STATS) return;
    const parts = [...this.counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}=${n}`);
    console.info(`[fuzz] ${label}: ${parts.join(' ')}`);
  }
}

const PROTOTYPES: Array<[string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];
const prototypeKeys = () =>
  PROTOTYPES.map(([name, p]) => [name, Reflect.ownKeys(p).map(String).sort()] as const);

/** Usually one of `good`, now and then one of `odd` (numbers for strings and the like). */
const mostly = (good: string[], odd: string[]) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...good) },
    { weight: 1, arbitrary: fc.constantFrom(...odd) },
  );

const phoneList = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: mostly(['"260971234567"', '"+260 97 123 4568"'], ['260971234569']) },
      { weight: 1, arbitrary: nastyString.map(jsonString) },
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((xs) => `[${xs.join(',')}]`);
const phones = fc.oneof(
  mostly(['"260971234567"', '["260971234567","260971234568"]'], ['[260971234567]', '"0971234567"', '[]']),
  phoneList,
);
const callbackUrls = fc.oneof(
  fc.constantFrom(
    '"https://example.com/cb?x=1"',
    '"http://example.com/cb"',
    '"http://127.0.0.1/x"',
    '"http://2130706433/"',
    '"http://[::ffff:127.0.0.1]/"',
    '"http://169.254.169.254/latest/meta-data"',
    '"https://localhost./"',
    '"https://user:pw@example.com/"',
    '"javascript:alert(1)"',
    '"file:///etc/passwd"',
    '"ftp://example.com/"',
    '"//example.com"',
  ),
  nastyString.map((s) => jsonString(`https://example.com/${s}`)),
);
const text = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('"Hello"', '"Muli shani"') },
  { weight: 3, arbitrary: nastyString.map(jsonString) },
);
const hugeBodies = fc
  .constantFrom(1_500_000, 4 * 1024 * 1024 + 1)
  .map((n) => `{"message":"${'m'.repeat(n)}"}`);

describe(`fuzzing every endpoint with hostile input (fast-check seed ${FUZZ_SEED}, ${FUZZ_RUNS} runs)`, () => {
  let t: TestApp;
  let port: number;
  const before = prototypeKeys();

  beforeAll(async () => {
    t = await startTestApp();
    port = await listen(t.app.getHttpServer());
  });
  afterAll(async () => t?.close());

  const big = { sms: '1000000000', email: '1000000000', chat: '1000000000' };

  const post = (
    path: string,
    key: string,
    c: { body: Buffer; type: string | undefined; encoding: string | undefined },
  ) =>
    rawRequest(
      port,
      {
        method: 'POST',
        path,
        headers: { 'X-API-Key': key, 'Content-Type': c.type, 'Content-Encoding': c.encoding },
        body: c.body,
      },
      REQUEST_TIMEOUT_MS,
    );

  /** Refused requests left nothing: every row and job of the tenant belongs to an accepted request. */
  async function expectOnlyAcceptedStored(
    tenant: Tenant,
    accepted: Set<string>,
    queue: string,
  ): Promise<void> {
    const requests = (await requestsOf(t, tenant.account.id, 'id')).map((r) => String(r.id));
    expect(new Set(requests)).toEqual(accepted);
    const withMessages = await requestIdsWithMessages(t, tenant.account.id);
    for (const id of withMessages) expect(accepted.has(id), `messages of a refused request ${id}`).toBe(true);
    const charged = new Set(
      (await ledgerEntries(t, { accountId: tenant.account.id }))
        .filter((e) => e.kind !== 'topup')
        .map((e) => String(e.send_request_id)),
    );
    for (const id of charged) expect(accepted.has(id), `a charge for a refused request ${id}`).toBe(true);
    // The queue is shared by the suite's tenants: a job must belong to an accepted request of
    // this tenant or to a stored request of another one; a refused request has no row at all.
    const jobs = await t.queue(queue).getJobs(['waiting', 'delayed', 'active', 'paused']);
    const foreign = [
      ...new Set(jobs.map((j) => String(j.data.sendRequestId)).filter((id) => !accepted.has(id))),
    ];
    if (foreign.length > 0) {
      const owners = await requestsById(t, foreign, 'id', 'account_id');
      const stored = new Map(owners.map((o) => [String(o.id), String(o.account_id)]));
      for (const id of foreign) {
        expect(stored.has(id), `a job for a request that was never stored: ${id}`).toBe(true);
        expect(stored.get(id), `a job of this tenant for a refused request ${id}`).not.toBe(
          String(tenant.account.id),
        );
      }
    }
  }

  const countSendRequests = () => allRequestsCount(t);

  /** Runs the property on one JSON POST endpoint; returns the accepted references. */
  async function fuzzJsonPost(opts: {
    path: string;
    tenant: Tenant;
    body: fc.Arbitrary<string>;
    success: (res: RawResponse) => string | void;
    factor?: number;
  }): Promise<Set<string>> {
    const accepted = new Set<string>();
    const tally = new Tally();
    const rowsBefore = await countSendRequests();
    const cases = fc
      .record({ body: rawBody(opts.body), type: jsonContentType, encoding: contentEncoding })
      .map(shortRepr);
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const res = await post(opts.path, opts.tenant.key, c);
        expect(res.headers['x-request-id']).toBeTruthy();
        if (res.status === 200) {
          const ref = opts.success(res);
          if (ref) accepted.add(ref);
          tally.add('200');
        } else {
          tally.add(expectJsonError(res));
        }
      }),
      fcParams(opts.factor),
    );
    tally.print(opts.path);
    // Counted globally too: nothing else writes while a property runs.
    expect(await countSendRequests()).toBe(rowsBefore + accepted.size);
    return accepted;
  }

  it(
    'POST /api/v1/json/bulk/sms answers 200 or a 4xx envelope to any body, and a refusal stores and queues nothing',
    async () => {
      const tenant = await createTenant(t, { balances: big });
      const fields: FieldSpec = {
        from: mostly(
          ['"ACME"', '"260971234567"', '"A B"'],
          ['260971234567', '"+260971234567"', '"ACMECORPORATION"'],
        ),
        sender_id: fc.constantFrom('"ACME"', '"ACME2"', '12345'),
        to: phones,
        recipient: phones,
        message: text,
        message_body: text,
        callback_url: callbackUrls,
        source: nastyString.map(jsonString),
        user_reference_id: nastyString.map(jsonString),
      };
      const body = fc.oneof(
        {
          weight: 12,
          arbitrary: objectBodyText(fields, [
            'sender_id',
            'recipient',
            'message_body',
            'callback_url',
            'user_reference_id',
          ]),
        },
        { weight: 2, arbitrary: jsonValueText },
        { weight: 1, arbitrary: deepJsonText('to') },
        { weight: 1, arbitrary: bigArrayBodyText({ from: '"ACME"', message: '"x"' }, 'to') },
        { weight: 1, arbitrary: hugeBodies },
      );
      const accepted = await fuzzJsonPost({
        path: '/api/v1/json/bulk/sms',
        tenant,
        body,
        success: expectSmsSuccess,
      });
      await expectOnlyAcceptedStored(tenant, accepted, 'sms');
    },
    testTimeout(),
  );

  it(
    'POST /api/v1/json/bulk/email answers 200 or a 4xx envelope to any body, and a refusal stores and queues nothing',
    async () => {
      const tenant = await createTenant(t, { balances: big });
      const emails = fc.oneof(
        mostly(
          ['"jane@example.com"', '["jane@example.com","JOHN@EXAMPLE.COM"]'],
          ['"not-an-address"', '["a@b"]', '[1]'],
        ),
        fc
          .array(
            fc.oneof(
              fc.constant('"x@example.com"'),
              nastyString.map((s) => jsonString(`${s}@example.com`)),
            ),
            { maxLength: 4 },
          )
          .map((xs) => `[${xs.join(',')}]`),
      );
      const fields: FieldSpec = {
        to: emails,
        subject: text,
        email_body: text,
        from: mostly(['"billing@acme.example"', '"o\'brien%_x@acme.example"'], ['"nobody"', '"a@b@c"']),
        reply_to: mostly(['"support@acme.example"', '""'], ['"bad"']),
        source: nastyString.map(jsonString),
        user_reference_id: nastyString.map(jsonString),
      };
      const body = fc.oneof(
        { weight: 12, arbitrary: objectBodyText(fields, ['reply_to', 'user_reference_id']) },
        { weight: 2, arbitrary: jsonValueText },
        { weight: 1, arbitrary: deepJsonText('to') },
        {
          weight: 1,
          arbitrary: bigArrayBodyText({ from: '"a@acme.example"', subject: '"s"', email_body: '"b"' }, 'to'),
        },
        { weight: 1, arbitrary: hugeBodies },
      );
      const accepted = await fuzzJsonPost({
        path: '/api/v1/json/bulk/email',
        tenant,
        body,
        success: expectEmailSuccess,
      });
      await expectOnlyAcceptedStored(tenant, accepted, 'email');
    },
    testTimeout(),
  );

  it(
    'POST /api/v1/json/bulk/chat answers 200 or a 4xx envelope to any body, and a refusal stores and queues nothing',
    async () => {
      const tenant = await createTenant(t, { balances: big });
      const fields: FieldSpec = {
        username: fc.oneof(
          { weight: 3, arbitrary: fc.constant(jsonString(tenant.username)) },
          { weight: 1, arbitrary: nastyString.map(jsonString) },
        ),
        password: fc.oneof(
          { weight: 3, arbitrary: fc.constant(jsonString(tenant.password)) },
          { weight: 1, arbitrary: fc.constant('"wrong-password"') },
        ),
        senderid: mostly(
          ['260971234567', '"260971234567"', '"+260971234567"'],
          ['0', '-1', '1.5', '1e400', '"abc"', '9007199254740993'],
        ),
        message: text,
        recipient: phones,
        user_reference_id: nastyString.map(jsonString),
      };
      const creds = {
        username: jsonString(tenant.username),
        password: jsonString(tenant.password),
        senderid: '260971234567',
        message: '"x"',
      };
      const body = fc.oneof(
        { weight: 12, arbitrary: objectBodyText(fields, ['user_reference_id']) },
        { weight: 2, arbitrary: jsonValueText },
        { weight: 1, arbitrary: deepJsonText('recipient') },
        { weight: 1, arbitrary: bigArrayBodyText(creds, 'recipient') },
        { weight: 1, arbitrary: hugeBodies },
      );
      const accepted = await fuzzJsonPost({
        path: '/api/v1/json/bulk/chat',
        tenant,
        body,
        success: expectChatSuccess,
      });
      await expectOnlyAcceptedStored(tenant, accepted, 'chat');
    },
    testTimeout(),
  );

  it(
    'POST /api/v1/json/balance answers 200 or a 4xx envelope to any body and stores nothing',
    async () => {
      const tenant = await createTenant(t, { balances: big });
      const fields: FieldSpec = {
        username: fc.oneof(
          { weight: 3, arbitrary: fc.constant(jsonString(tenant.username)) },
          { weight: 1, arbitrary: nastyString.map(jsonString) },
        ),
        password: fc.oneof(
          { weight: 3, arbitrary: fc.constant(jsonString(tenant.password)) },
          { weight: 1, arbitrary: nastyString.map(jsonString) },
        ),
      };
      const body = fc.oneof(
        { weight: 12, arbitrary: objectBodyText(fields) },
        { weight: 2, arbitrary: jsonValueText },
        { weight: 1, arbitrary: deepJsonText('username') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(20_000, 1_500_000).map((n) => `{"username":"${'u'.repeat(n)}"}`),
        },
      );
      await fuzzJsonPost({
        path: '/api/v1/json/balance',
        tenant,
        body,
        success: expectBalanceSuccess,
        factor: 0.75,
      });
      await expectOnlyAcceptedStored(tenant, new Set(), 'sms');
    },
    testTimeout(0.75),
  );

  it(
    'POST /api/v1/xml/bulk/sms answers 200 or the XML error shape to any document, bomb or byte soup, and a refusal stores and queues nothing',
    async () => {
      const tenant = await createTenant(t, { balances: big });
      const accepted = new Set<string>();
      const tally = new Tally();
      const rowsBefore = await countSendRequests();
      const cases = fc
        .record({ body: rawBody(xmlBodyText), type: xmlContentType, encoding: contentEncoding })
        .map(shortRepr);
      await fc.assert(
        fc.asyncProperty(cases, async (c) => {
          const res = await post('/api/v1/xml/bulk/sms', tenant.key, c);
          if (res.status === 200) {
            accepted.add(expectXmlSuccess(res));
            tally.add('200');
          } else {
            tally.add(expectXmlError(res));
          }
        }),
        fcParams(1.5),
      );
      tally.print('/api/v1/xml/bulk/sms');
      expect(await countSendRequests()).toBe(rowsBefore + accepted.size);
      await expectOnlyAcceptedStored(tenant, accepted, 'sms');
    },
    testTimeout(1.5),
  );

  describe('GET /api/v1/json/messages', () => {
    let tenant: Tenant;
    const realIds: string[] = [];
    const realRefs: string[] = [];

    beforeAll(async () => {
      tenant = await createTenant(t, { balances: big });
      const other = await createTenant(t, { balances: big });
      for (const [key, path, body] of [
        [
          tenant.key,
          '/api/v1/json/bulk/sms',
          { from: 'ACME', to: ['260971234567', '260971234568', 'bad'], message: 'x' },
        ],
        [
          tenant.key,
          '/api/v1/json/bulk/email',
          { from: 'a@acme.example', to: ['x@example.com'], subject: 's', email_body: 'b' },
        ],
        [other.key, '/api/v1/json/bulk/sms', { from: 'ACME', to: '260971234569', message: 'someone else' }],
      ] as const) {
        const res = await t.http().post(path).set('X-API-Key', key).send(body);
        expect(res.status).toBe(200);
        realRefs.push(res.body.api_reference);
        for (const d of res.body.data) realIds.push(d.message_id);
      }
    });

    const get = (path: string) =>
      rawRequest(port, { method: 'GET', path, headers: { 'X-API-Key': tenant.key } }, REQUEST_TIMEOUT_MS);

    it(
      "GET /messages/:id answers one of the caller's messages or a 4xx envelope for any id",
      async () => {
        await fc.assert(
          fc.asyncProperty(
            messageIdSegment(realIds).map((id) => shortRepr({ id })),
            async ({ id }) => {
              const res = await get(`/api/v1/json/messages/${id}`);
              if (res.status === 200) {
                expect(res.json).toMatchObject({
                  message_id: expect.any(String),
                  api_reference: expect.stringMatching(/^\d+$/),
                  history: expect.any(Array),
                });
              } else {
                expectJsonError(res);
              }
            },
          ),
          fcParams(1),
        );
      },
      testTimeout(),
    );

    it(
      'GET /messages?… answers a page (numbered or cursor-paged) or a 4xx envelope for any query string',
      async () => {
        await fc.assert(
          fc.asyncProperty(
            messageListQuery(realRefs).map((q) => shortRepr({ q })),
            async ({ q }) => {
              const res = await get(`/api/v1/json/messages?${q}`);
              if (res.status === 200 && 'next_cursor' in (res.json as object)) {
                // The search (no page, or filters beyond api_reference): cursor-paged.
                expect(res.json).toMatchObject({ limit: expect.any(Number), data: expect.any(Array) });
              } else if (res.status === 200) {
                expect(res.json).toMatchObject({
                  api_reference: expect.stringMatching(/^\d+$/),
                  page: expect.any(Number),
                  per_page: expect.any(Number),
                  total: expect.any(Number),
                  data: expect.any(Array),
                });
              } else {
                expectJsonError(res);
              }
            },
          ),
          fcParams(1.5),
        );
      },
      testTimeout(1.5),
    );
  });

  it('leaves Object.prototype, Array.prototype, Function.prototype and String.prototype untouched after every run', () => {
    expect(({} as Record<string, unknown>)[POLLUTION_MARK]).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, POLLUTION_MARK)).toBe(false);
    expect(prototypeKeys()).toEqual(before);
  });
});
