import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../src/app/openapi-writer.js';
import { ERROR_STATUS } from '../../src/platform/errors/error-codes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type Operation = {
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<
    string,
    {
      headers?: Record<string, unknown>;
      content?: Record<
        string,
        { schema?: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> }
      >;
    }
  >;
};
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
};

/** Every route of the interface plus the status and metrics routes, in OpenAPI path syntax. */
const ROUTES: Array<[string, string]> = [
  ['post', '/api/v1/json/bulk/sms'],
  ['post', '/api/v1/xml/bulk/sms'],
  ['post', '/api/v1/json/bulk/email'],
  ['post', '/api/v1/json/bulk/chat'],
  ['post', '/api/v1/json/balance'],
  ['get', '/api/v1/json/messages'],
  ['get', '/api/v1/json/messages/{messageId}'],
  ['post', '/api/v1/json/bulk/sms/preview'],
  ['post', '/api/v1/json/bulk/email/preview'],
  ['post', '/api/v1/json/bulk/chat/preview'],
  ['post', '/api/v1/json/templates'],
  ['get', '/api/v1/json/templates'],
  ['get', '/api/v1/json/templates/{templateId}'],
  ['put', '/api/v1/json/templates/{templateId}'],
  ['delete', '/api/v1/json/templates/{templateId}'],
  ['get', '/api/v1/json/inbound'],
  ['get', '/api/v1/json/suppressions'],
  ['post', '/api/v1/json/suppressions'],
  ['delete', '/api/v1/json/suppressions/{channel}/{recipient}'],
  ['post', '/api/v1/json/recipients/erase'],
  ['post', '/api/v1/json/subaccounts'],
  ['get', '/api/v1/json/subaccounts'],
  ['get', '/api/v1/json/subaccounts/{username}'],
  ['post', '/api/v1/json/subaccounts/{username}/transfers'],
  ['post', '/api/v1/json/subaccounts/{username}/keys'],
  ['delete', '/api/v1/json/subaccounts/{username}/keys/{keyId}'],
  ['post', '/unsubscribe/{token}'],
  ['get', '/l/{code}'],
  ['get', '/health'],
  ['get', '/health/detailed'],
  ['get', '/health/ready'],
  ['get', '/health/live'],
  ['get', '/metrics'],
];
const KEYED = ROUTES.filter(([, p]) => p.startsWith('/api/'));

describe('OpenAPI document (/docs, /docs-json)', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.http().get('/docs-json');
    expect(res.status).toBe(200);
    doc = res.body as Doc;
  });
  afterAll(async () => t?.close());

  const schema = (name: string) => doc.components.schemas[name];
  const ref = (r: string | undefined) => r?.replace('#/components/schemas/', '');

  it('serves Swagger UI at /docs and the document at /docs-json without an API key', async () => {
    const ui = await t.http().get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
    expect(ui.text).toMatch(/swagger/i);
    expect(doc.openapi).toMatch(/^3\./);
  });

  it('serves the committed openapi.json', () => {
    expect(doc).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('is a valid OpenAPI document (swagger-parser validate)', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('lists every route of the interface, and every route the app serves is documented', async () => {
    for (const [method, path] of ROUTES)
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    // The app's own routes, read from Express: a controller added without documentation shows up here.
    const router = (
      t.app.getHttpAdapter().getInstance() as {
        router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> };
      }
    ).router;
    const served = router.stack
      .filter((l) => l.route && !l.route.path.includes('*') && !l.route.path.startsWith('/docs'))
      .flatMap((l) =>
        Object.keys(l.route!.methods)
          .filter((m) => m !== '_all')
          .map((m) => `${m} ${l.route!.path.replace(/:(\w+)/g, '{$1}')}`),
      );
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m} ${p}`),
    );
    expect(served.length).toBeGreaterThanOrEqual(ROUTES.length);
    for (const route of served) expect(documented, route).toContain(route);
  });

  it('declares the three key schemes and requires one of them on every keyed route, none on health', () => {
    expect(doc.components.securitySchemes.api_key).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    );
    expect(doc.components.securitySchemes.bearer).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
    expect(doc.components.securitySchemes.basic).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'basic' }),
    );
    for (const [method, path] of KEYED) {
      const security = doc.paths[path][method].security ?? [];
      expect(security, path).toEqual(
        expect.arrayContaining([{ api_key: [] }, { bearer: [] }, { basic: [] }]),
      );
    }
    for (const path of ['/health', '/health/detailed', '/health/ready', '/health/live'])
      expect(doc.paths[path].get.security ?? []).toEqual([]);
    // No METRICS_TOKEN here: /metrics is open, and the document shows no lock on it.
    expect(doc.paths['/metrics'].get.security ?? []).toEqual([]);
    expect(doc.components.securitySchemes).not.toHaveProperty('metrics_token');
    // The one-click unsubscribe target is reached by mailbox providers, without a key.
    expect(doc.paths['/unsubscribe/{token}'].post.security ?? []).toEqual([]);
    // Short links are opened by the recipients of messages, without a key.
    expect(doc.paths['/l/{code}'].get.security ?? []).toEqual([]);
  });

  it('describes request and response bodies with the documented examples', () => {
    const smsBody = ref(
      doc.paths['/api/v1/json/bulk/sms'].post.requestBody?.content['application/json'].schema.$ref,
    )!;
    expect(schema(smsBody).properties?.to.example).toContain('260971234567');
    expect(Object.keys(schema(smsBody).properties ?? {})).toEqual(
      expect.arrayContaining([
        'from',
        'to',
        'message',
        'callback_url',
        'source',
        'user_reference_id',
        'sender_id',
        'recipient',
        'message_body',
      ]),
    );
    // Either name of each pair will do (from or sender_id, ...), so neither is required by the
    // schema: a valid body with the older names must validate. The description says which is needed.
    expect(schema(smsBody).required ?? []).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(from|to|message|sender_id|recipient|message_body)$/)]),
    );
    expect(schema(smsBody).properties?.from.description).toMatch(/Required, here or as sender_id/);

    const smsOk = ref(
      doc.paths['/api/v1/json/bulk/sms'].post.responses['200'].content?.['application/json'].schema?.$ref,
    )!;
    expect(schema(smsOk).properties?.api_reference.example).toBe('1764184470578998353');
    const emailOk = ref(
      doc.paths['/api/v1/json/bulk/email'].post.responses['200'].content?.['application/json'].schema?.$ref,
    )!;
    expect(
      schema(ref((schema(emailOk).properties?.data.items as { $ref: string }).$ref)!).properties?.message_id
        .example,
    ).toBe('5');

    const balanceOk = ref(
      doc.paths['/api/v1/json/balance'].post.responses['200'].content?.['application/json'].schema?.$ref,
    )!;
    const channel = schema('ChannelBalanceDto').properties!;
    expect([channel.balance_value.example, channel.cost_per_unit.example, channel.credits.example]).toEqual([
      19687.5, 1.25, 15750,
    ]);
    expect(Object.keys(schema(balanceOk).properties ?? {})).toEqual(
      expect.arrayContaining([
        'status',
        'account_status',
        'client_id',
        'currency',
        'last_updated',
        'total_value',
        'balances',
      ]),
    );
    const chatBody = ref(
      doc.paths['/api/v1/json/bulk/chat'].post.requestBody?.content['application/json'].schema.$ref,
    )!;
    // A template_id stands in for the message, so the schema asks for one of the two.
    expect(schema(chatBody).required).toEqual(
      expect.arrayContaining(['username', 'password', 'senderid', 'recipient']),
    );
    expect(doc.paths['/api/v1/xml/bulk/sms'].post.requestBody?.content['application/xml']).toBeDefined();

    const detailed = ref(
      doc.paths['/health/detailed'].get.responses['200'].content?.['application/json'].schema?.$ref,
    )!;
    expect(Object.keys(schema(detailed).properties ?? {})).toEqual([
      'status',
      'service',
      'environment',
      'version',
      'timestamp',
      'uptime',
      'checks',
    ]);
    expect(Object.keys(schema('HealthChecksDto').properties ?? {})).toEqual([
      'cache',
      'database',
      'log_database',
      'notification_database',
      'message_queue',
      'external_services',
    ]);
  });

  it('documents error responses with the error envelope', () => {
    const envelope = schema('ErrorEnvelopeDto');
    expect(Object.keys(envelope.properties ?? {})).toEqual(['success', 'message', 'error', 'request_id']);
    expect(Object.keys(schema('ErrorBodyDto').properties ?? {})).toEqual(['code', 'details']);
    expect(schema('ErrorBodyDto').properties?.code.enum).toEqual(
      expect.arrayContaining(['VALIDATION_ERROR', 'INSUFFICIENT_BALANCE', 'RATE_LIMITED']),
    );
    for (const [method, path] of KEYED.filter(([, p]) => !p.includes('/xml/'))) {
      const responses = doc.paths[path][method].responses;
      const errors = Object.keys(responses).filter((s) => Number(s) >= 400);
      expect(errors, path).toEqual(expect.arrayContaining(['401', '429', '500', '503']));
      for (const status of errors)
        expect(ref(responses[status].content?.['application/json'].schema?.$ref), `${path} ${status}`).toBe(
          'ErrorEnvelopeDto',
        );
    }
    expect(doc.paths['/api/v1/json/bulk/sms'].post.responses['402']).toBeDefined();
    expect(
      doc.paths['/api/v1/xml/bulk/sms'].post.responses['400'].content?.['application/xml'],
    ).toBeDefined();
    // Without METRICS_TOKEN /metrics never answers 401 (see the locked document below).
    expect(doc.paths['/metrics'].get.responses).not.toHaveProperty('401');
    expect(doc.paths['/health/detailed'].get.responses).not.toHaveProperty('401');
  });

  it('gives every error response its own examples, each with a code of that status', () => {
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          // Health 503s answer the health shape (checked below), a short link's 404 a page for
          // people; every other error is the envelope.
          if (Number(status) < 400 || path.startsWith('/health') || path.startsWith('/l/')) continue;
          const json = response.content?.['application/json']?.examples;
          const xml = response.content?.['application/xml']?.examples;
          const examples = Object.values(json ?? xml ?? {});
          expect(examples.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
          for (const { value } of examples) {
            const code = json
              ? (value as { error: { code: keyof typeof ERROR_STATUS } }).error.code
              : (/<code>(\w+)<\/code>/.exec(String(value))?.[1] as keyof typeof ERROR_STATUS);
            expect(ERROR_STATUS[code], `${method} ${path} ${status}: ${code}`).toBe(Number(status));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    const unauthorized =
      doc.paths['/api/v1/json/bulk/sms'].post.responses['401'].content!['application/json'].examples!;
    expect(Object.keys(unauthorized)).toEqual(
      expect.arrayContaining(['MISSING_API_KEY', 'INVALID_API_KEY', 'API_KEY_EXPIRED']),
    );
  });

  it('pairs a reason only with REJECTED in the send examples, and shows an unhealthy 503', () => {
    for (const path of ['/api/v1/json/bulk/sms', '/api/v1/json/bulk/email']) {
      const example = doc.paths[path].post.responses['200'].content?.['application/json'].example as {
        data: Array<{ status: string; reason?: string }>;
      };
      expect(example.data.map((d) => d.status)).toEqual(['ACKNOWLEDGED', 'REJECTED']);
      for (const d of example.data)
        expect('reason' in d, `${path} ${d.status}`).toBe(d.status === 'REJECTED');
    }
    const unhealthy = doc.paths['/health/detailed'].get.responses['503'].content?.['application/json']
      .example as { status: string; checks: { external_services: { client_server: { status: string } } } };
    expect(unhealthy.status).toBe('unhealthy');
    expect(unhealthy.checks.external_services.client_server.status).toBe('unhealthy');
    expect(
      (
        doc.paths['/health/ready'].get.responses['503'].content?.['application/json'].example as {
          status: string;
        }
      ).status,
    ).toBe('not_ready');
  });

  it('declares Idempotency-Key on every creating POST (not on previews or lookups), with 409, 422 and Idempotent-Replayed', () => {
    const creating = [
      '/api/v1/json/bulk/sms',
      '/api/v1/xml/bulk/sms',
      '/api/v1/json/bulk/email',
      '/api/v1/json/bulk/chat',
      '/api/v1/json/templates',
      '/api/v1/json/suppressions',
      '/api/v1/json/subaccounts',
      '/api/v1/json/subaccounts/{username}/transfers',
      '/api/v1/json/subaccounts/{username}/keys',
    ];
    for (const [method, path] of ROUTES) {
      const op = doc.paths[path][method];
      const header = (op.parameters ?? []).find((p) => p.name === 'Idempotency-Key');
      if (method !== 'post' || !creating.includes(path)) {
        expect(header, `${method} ${path}`).toBeUndefined();
        continue;
      }
      expect(header, path).toMatchObject({ in: 'header', required: false });
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(['409', '422']));
      const ok = Object.entries(op.responses).find(([status]) => status.startsWith('2'))![1];
      expect(ok.headers, path).toHaveProperty('Idempotent-Replayed');
    }
  });

  it('declares the RateLimit headers on every answer of every keyed route, and Retry-After on its 429', () => {
    for (const [method, path] of KEYED) {
      for (const [status, response] of Object.entries(doc.paths[path][method].responses)) {
        // A wrong method is answered before any key is read: its 405 carries Allow instead.
        if (status === '405') continue;
        for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
          expect(response.headers, `${method} ${path} ${status}`).toHaveProperty(name);
        if (status === '429') expect(response.headers).toHaveProperty('Retry-After');
      }
    }
    expect(doc.paths['/health'].get.responses['200'].headers ?? {}).not.toHaveProperty('RateLimit-Limit');
  });

  it("declares subaccount= on the read routes a parent points at a sub-account, and the sub-account routes' bodies", () => {
    for (const path of [
      '/api/v1/json/messages',
      '/api/v1/json/messages/{messageId}',
      '/api/v1/json/messages/export',
      '/api/v1/json/bulk/{apiReference}',
      '/api/v1/json/inbound',
      '/api/v1/json/suppressions',
    ]) {
      const param = (doc.paths[path].get.parameters ?? []).find((p) => p.name === 'subaccount');
      expect(param, path).toMatchObject({ in: 'query', required: false });
    }
    const body = (method: string, path: string) =>
      ref(doc.paths[path][method].requestBody?.content['application/json'].schema.$ref);
    expect(Object.keys(schema(body('post', '/api/v1/json/subaccounts')!).properties!)).toEqual([
      'username',
      'name',
    ]);
    expect(
      Object.keys(schema(body('post', '/api/v1/json/subaccounts/{username}/transfers')!).properties!),
    ).toEqual(['channel', 'amount']);
    const listed = ref(
      doc.paths['/api/v1/json/subaccounts'].get.responses['200'].content!['application/json'].schema!.$ref,
    );
    expect(schema(listed!).properties).toHaveProperty('next_cursor');
    expect(Object.keys(doc.paths['/api/v1/json/subaccounts/{username}/transfers'].post.responses)).toContain(
      '402',
    );
  });

  it('shows the fallback links on search items and in both export formats', () => {
    const search = ref(
      doc.paths['/api/v1/json/messages'].get.responses['200'].content!['application/json'].schema!.$ref,
    );
    const item = ref((schema(search!).properties!.data as { items: { $ref: string } }).items.$ref);
    expect(schema(item!).properties).toHaveProperty('fallback');
    expect(schema(item!).properties).toHaveProperty('fallback_of');
    const exported = doc.paths['/api/v1/json/messages/export'].get.responses['200'].content!;
    const [header, chat, sms] = String(exported['text/csv'].example).trimEnd().split('\n');
    expect(header!.split(',')).toEqual([
      ...'message_id,api_reference,user_reference_id,channel,recipient,status,reason,units,cost,currency'.split(
        ',',
      ),
      'created_at',
      'updated_at',
      'fallback_message_id',
      'fallback_of',
      'smpp_message_id',
    ]);
    const [chatId, smsId] = [chat!.split(',')[0], sms!.split(',')[0]];
    expect(chat!.split(',').slice(12, 14)).toEqual([smsId, '']);
    expect(sms!.split(',').slice(12, 14)).toEqual(['', chatId]);
    const lines = String(exported['application/x-ndjson'].example)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.fallback_message_id, l.fallback_of])).toEqual([
      [smsId, null],
      [null, chatId],
    ]);
  });

  it('describes the bearer scheme as an opaque token, not a JWT', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.bearer).not.toHaveProperty('bearerFormat');
  });

  it('locks /metrics and /health/detailed in the document when METRICS_TOKEN is set, and only then', async () => {
    const locked = await startTestApp({ METRICS_TOKEN: 'openapi-metrics-token-0123456789' });
    try {
      const res = await locked.http().get('/docs-json');
      const lockedDoc = res.body as Doc;
      expect(lockedDoc.paths['/metrics'].get.security).toEqual([{ metrics_token: [] }]);
      expect(lockedDoc.paths['/health/detailed'].get.security).toEqual([{ metrics_token: [] }]);
      expect(lockedDoc.paths['/health/detailed'].get.responses).toHaveProperty('401');
      expect(
        ref(lockedDoc.paths['/metrics'].get.responses['401'].content?.['application/json'].schema?.$ref),
      ).toBe('ErrorEnvelopeDto');
      expect(lockedDoc.components.securitySchemes.metrics_token).toMatchObject({
        type: 'http',
        scheme: 'bearer',
      });
      expect(lockedDoc.components.securitySchemes.metrics_token).not.toHaveProperty('bearerFormat');
      await expect(SwaggerParser.validate(structuredClone(lockedDoc) as never)).resolves.toBeTruthy();
      // As documented: open without the token here, locked there.
      expect((await t.http().get('/metrics')).status).toBe(200);
      expect((await locked.http().get('/metrics')).status).toBe(401);
      expect((await locked.http().get('/health/detailed')).status).toBe(401);
    } finally {
      await locked.close();
    }
  });
});
