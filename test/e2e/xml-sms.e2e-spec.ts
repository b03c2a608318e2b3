import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import {
  messagesOfRequest,
  queuedForRequest,
  sendRequestCount,
  sendRequestFields,
} from '../support/probes.js';
import { queuedMessageIds, startTestApp, type TestApp } from '../support/test-app.js';

const XML = '/api/v1/xml/bulk/sms';

interface XmlAnswer {
  reference?: string;
  status?: string;
  recipient?: string[];
  rejected?: Array<{ recipient: string; reason: string }>;
  code?: string;
  message?: string;
  request_id?: string;
}

const reader = new XMLParser({
  parseTagValue: false,
  isArray: (name) => name === 'recipient' || name === 'rejected',
});
/** Parses an answer and insists on the one `<response>` root. */
function answer(text: string): XmlAnswer {
  const doc = reader.parse(text) as Record<string, unknown>;
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['response']);
  const r = doc.response as XmlAnswer & { rejected?: Array<{ recipient: string[]; reason: string }> };
  return { ...r, rejected: r.rejected?.map((x) => ({ recipient: x.recipient[0], reason: x.reason })) };
}

function doc(fields: Record<string, string | string[]>, root = 'request'): string {
  const body = Object.entries(fields)
    .flatMap(([name, v]) => (Array.isArray(v) ? v : [v]).map((x) => `<${name}>${x}</${name}>`))
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><${root}>${body}</${root}>`;
}

describe('POST /api/v1/xml/bulk/sms', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, { balances: { sms: '100000' } });
  });
  afterAll(async () => t?.close());

  const base = { from: 'ACME', to: '260971234567', message: 'Hello', source: 'API' };
  const post = (body: string, contentType = 'application/xml', key: string | null = tenant.key) => {
    const r = t.http().post(XML).set('Content-Type', contentType);
    if (key) r.set('X-API-Key', key);
    return r.send(body);
  };
  const messagesOf = async (ref: string) =>
    (await messagesOfRequest(t, ref)).map(({ id, recipient, status, reason }) => ({
      id,
      recipient,
      status,
      reason,
    }));
  const expectXmlError = (
    res: { status: number; headers: Record<string, string>; text: string },
    status: number,
    code: string,
  ) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    const a = answer(res.text);
    expect(a).toMatchObject({
      status: 'ERROR',
      code,
      message: expect.any(String),
      request_id: res.headers['x-request-id'],
    });
    return a;
  };

  it.each(['application/xml', 'text/xml', 'application/json'])(
    'accepts a document sent as %s and answers application/xml with reference, SUCCESS and the recipient',
    async (contentType) => {
      const res = await post(doc(base), contentType);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      expect(res.text.startsWith('<?xml version="1.0" encoding="UTF-8"?><response><reference>')).toBe(true);
      const a = answer(res.text);
      expect(a).toEqual({
        reference: expect.stringMatching(/^\d{19}$/),
        status: 'SUCCESS',
        recipient: ['260971234567'],
        rejected: undefined,
      });
      const rows = await messagesOf(a.reference!);
      expect(rows).toEqual([
        { id: expect.any(String), recipient: '260971234567', status: 'ACKNOWLEDGED', reason: null },
      ]);
      const req = await sendRequestFields(t, a.reference, 'channel', 'sender', 'body', 'source');
      expect(req).toEqual({ channel: 'sms', sender: 'ACME', body: 'Hello', source: 'API' });
      expect(await queuedMessageIds(t.queue('sms'))).toContain(rows[0].id);
    },
  );

  it('accepts any root element name', async () => {
    const res = await post(doc(base, 'sms'));
    expect(res.status).toBe(200);
    expect(answer(res.text).status).toBe('SUCCESS');
  });

  it.each([
    ['repeated <to> elements', { to: ['260971234567', '260971234568', '260971234569'] }],
    ['one comma-separated <to>', { to: '260971234567, 260971234568,260971234569' }],
    ['both forms mixed', { to: ['260971234567,260971234568', '260971234569'] }],
  ])(
    'sends to several recipients given as %s: one <recipient>, one row and one queued id each',
    async (_name, fields) => {
      const res = await post(doc({ ...base, ...fields }));
      expect(res.status).toBe(200);
      const a = answer(res.text);
      expect(a.recipient).toEqual(['260971234567', '260971234568', '260971234569']);
      const rows = await messagesOf(a.reference!);
      expect(rows).toHaveLength(3);
      expect((await queuedForRequest(t.queue('sms'), a.reference!)).sort()).toEqual(
        rows.map((r) => r.id).sort(),
      );
    },
  );

  it('lists every recipient, names refused ones under <rejected> with a reason, and queues only the valid ones', async () => {
    const res = await post(
      doc({ ...base, to: ['+260 97 123 4567', '0971234567', '260971234567', '260971234568'] }),
    );
    expect(res.status).toBe(200);
    const a = answer(res.text);
    expect(a.recipient).toEqual(['260971234567', '0971234567', '260971234568']);
    expect(a.rejected).toEqual([{ recipient: '0971234567', reason: 'INVALID_NUMBER' }]);
    const rows = await messagesOf(a.reference!);
    expect(rows.map((r) => r.status)).toEqual(['ACKNOWLEDGED', 'REJECTED', 'ACKNOWLEDGED']);
    expect((await queuedForRequest(t.queue('sms'), a.reference!)).sort()).toEqual(
      [rows[0].id, rows[2].id].sort(),
    );
  });

  it('decodes the predefined entities, character references and CDATA in the message', async () => {
    // The codec trims text around a CDATA section, so the fixture puts none there.
    const res = await post(
      doc({ ...base, message: 'Fish &amp; chips &lt;3 &#128512;&#x263A;<![CDATA[<b>&amp;</b>]]>' }),
    );
    expect(res.status).toBe(200);
    const req = await sendRequestFields(t, answer(res.text).reference, 'body');
    expect(req.body).toBe('Fish & chips <3 😀☺<b>&amp;</b>');
  });

  it('stores callback_url and user_reference_id, and answers a repeat of the reference with the first reference', async () => {
    const tn = await createTenant(t);
    const body = doc({ ...base, callback_url: 'https://example.com/hook', user_reference_id: 'xml-ref-1' });
    const first = await post(body, 'application/xml', tn.key);
    const again = await post(body, 'application/xml', tn.key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(answer(again.text).reference).toBe(answer(first.text).reference);
    const req = await sendRequestFields(t, answer(first.text).reference, 'callback_url', 'user_reference_id');
    expect(req).toEqual({ callback_url: 'https://example.com/hook', user_reference_id: 'xml-ref-1' });
    expect(await sendRequestCount(t, tn.account.id)).toBe(1);
    expectXmlError(
      await post(
        doc({ ...base, message: 'other', user_reference_id: 'xml-ref-1' }),
        'application/xml',
        tn.key,
      ),
      409,
      'DUPLICATE_REFERENCE',
    );
  });

  it('is the same request as JSON SMS: a JSON send and the same XML send share one user_reference_id', async () => {
    const tn = await createTenant(t);
    const json = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tn.key)
      .send({
        from: 'ACME',
        to: ['260971234567'],
        message: 'Hello',
        source: 'API',
        user_reference_id: 'both-1',
      });
    expect(json.status).toBe(200);
    const xml = await post(doc({ ...base, user_reference_id: 'both-1' }), 'application/xml', tn.key);
    expect(xml.status).toBe(200);
    expect(answer(xml.text).reference).toBe(json.body.api_reference);
  });

  it.each(['from', 'to', 'message', 'source'])(
    'refuses a document without <%s> with an XML VALIDATION_ERROR naming it',
    async (field) => {
      const tn = await createTenant(t);
      const fields: Record<string, string> = { ...base };
      delete fields[field];
      const a = expectXmlError(await post(doc(fields), 'application/xml', tn.key), 400, 'VALIDATION_ERROR');
      expect(a.message).toContain(`${field} is required`);
      expect(await sendRequestCount(t, tn.account.id)).toBe(0);
    },
  );

  it.each([
    ['an empty <source>', { source: '' }, 'source is required'],
    ['a <to> of only commas', { to: ' , ,' }, 'to is required'],
    ['a repeated <from>', { from: ['ACME', 'OTHER'] }, 'from must appear once'],
    ['a <message> with child elements', { message: 'Hi <b>there</b>' }, 'message must be plain text'],
    ['a <to> with child elements', { to: '<n>260971234567</n>' }, 'to must be plain text'],
    ['a <source> over 255 characters', { source: 'x'.repeat(256) }, 'source must be at most 255 characters'],
  ])('refuses %s with an XML VALIDATION_ERROR', async (_name, fields, text) => {
    const a = expectXmlError(await post(doc({ ...base, ...fields })), 400, 'VALIDATION_ERROR');
    expect(a.message).toContain(text);
  });

  it('applies the SMS sender rules: an invalid sender id is VALIDATION_ERROR', async () => {
    expectXmlError(await post(doc({ ...base, from: 'ACME-COMPANY-LTD' })), 400, 'VALIDATION_ERROR');
  });

  it('applies the SMS length rule: 11 segments is MESSAGE_TOO_LONG', async () => {
    expectXmlError(await post(doc({ ...base, message: 'x'.repeat(153 * 10 + 1) })), 400, 'MESSAGE_TOO_LONG');
  });

  it('refuses a private callback_url with INVALID_CALLBACK_URL', async () => {
    expectXmlError(
      await post(doc({ ...base, callback_url: 'http://127.0.0.1/hook' })),
      400,
      'INVALID_CALLBACK_URL',
    );
  });

  it('refuses a document where no number is valid with VALIDATION_ERROR', async () => {
    expectXmlError(await post(doc({ ...base, to: ['123', 'abc'] })), 400, 'VALIDATION_ERROR');
  });

  it('refuses more than MAX_RECIPIENTS numbers with TOO_MANY_RECIPIENTS', async () => {
    const to = Array.from(
      { length: t.config.maxRecipients + 1 },
      (_, i) => `2609${String(i).padStart(8, '0')}`,
    ).join(',');
    expectXmlError(await post(doc({ ...base, to })), 400, 'TOO_MANY_RECIPIENTS');
  });

  it.each([
    ['an unclosed element', '<request><from>ACME</from><to>260971234567</to>'],
    ['mismatched tags', '<request><from>ACME</to></request>'],
    ['plain text', 'from=ACME&to=260971234567'],
    ['a JSON body', JSON.stringify(base)],
    ['two root elements', '<a><from>x</from></a><b><to>y</to></b>'],
    ['an undeclared entity', doc({ ...base, message: 'hi &nbsp; there' })],
    ['a bare ampersand', doc({ ...base, message: 'fish & chips' })],
    ['an empty body', ''],
  ])('refuses %s with 400 MALFORMED_BODY in the XML error shape', async (_name, body) => {
    const tn = await createTenant(t);
    const res = await post(body, 'application/xml', tn.key);
    expectXmlError(res, 400, 'MALFORMED_BODY');
    expect(res.text).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?><response><status>ERROR<\/status><code>MALFORMED_BODY<\/code><message>[^<]+<\/message><request_id>[^<]+<\/request_id><\/response>$/,
    );
    expect(await sendRequestCount(t, tn.account.id)).toBe(0);
  });

  it.each([
    [
      'an external entity (XXE) reading /etc/passwd',
      '<?xml version="1.0"?><!DOCTYPE request [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
        '<request><from>ACME</from><to>260971234567</to><message>&xxe;</message><source>API</source></request>',
    ],
    [
      'a parameter entity fetching a URL',
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY % ext SYSTEM "http://127.0.0.1:1/x.dtd"> %ext;]>' +
        '<request><from>ACME</from><to>260971234567</to><message>x</message><source>API</source></request>',
    ],
    [
      'a billion-laughs expansion',
      '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>' +
        '<request><from>ACME</from><to>260971234567</to><message>&lol2;</message><source>API</source></request>',
    ],
    [
      'a lower-case doctype',
      '<!doctype request><request><from>ACME</from><to>260971234567</to><message>x</message><source>API</source></request>',
    ],
  ])('refuses %s with MALFORMED_BODY and no file content in the answer', async (_name, body) => {
    const tn = await createTenant(t);
    const res = await post(body, 'application/xml', tn.key);
    expectXmlError(res, 400, 'MALFORMED_BODY');
    expect(res.text).toContain('DOCTYPE and ENTITY declarations are not allowed');
    expect(res.text).not.toMatch(/root:|daemon:|nologin|lollol/);
    expect(await sendRequestCount(t, tn.account.id)).toBe(0);
  });

  it('refuses a request without an API key with 401 MISSING_API_KEY in XML', async () => {
    const res = await post(doc(base), 'application/xml', null);
    expectXmlError(res, 401, 'MISSING_API_KEY');
    expect(res.headers['www-authenticate']).toContain('Bearer');
  });

  it('checks the key before the body: a malformed document without a key is 401, not 400', async () => {
    expectXmlError(await post('<request><from>', 'application/xml', null), 401, 'MISSING_API_KEY');
  });

  it('refuses an unknown API key with 401 INVALID_API_KEY in XML', async () => {
    expectXmlError(await post(doc(base), 'application/xml', 'nope-not-a-key'), 401, 'INVALID_API_KEY');
  });

  it('refuses a body over the size limit with 413 PAYLOAD_TOO_LARGE in XML', async () => {
    const huge = doc({ ...base, message: 'x'.repeat(5 * 1024 * 1024) });
    expectXmlError(await post(huge), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('escapes what it echoes: a rejected recipient with markup comes back as text, not as elements', async () => {
    const res = await post(doc({ ...base, to: ['260971234567', 'a&lt;b&gt;&amp;'] }));
    expect(res.status).toBe(200);
    expect(res.text).toContain('<recipient>a&lt;b&gt;&amp;</recipient>');
    expect(answer(res.text).rejected).toEqual([{ recipient: 'a<b>&', reason: 'INVALID_NUMBER' }]);
  });
});
