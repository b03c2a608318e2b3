import fc from 'fast-check';
import { expect } from 'vitest';
import { ERROR_STATUS } from '../../src/platform/errors/error-codes.js';
import type { RawResponse } from './raw-http.js';

/**
 * What every answer of the API must look like, whatever it was sent:
 * 200 in the endpoint's own shape, or a 4xx in the one error envelope. Never a 5xx.
 */

function expectClientErrorStatus(res: RawResponse): void {
  expect(
    res.status,
    `expected 200 or a 4xx, got ${res.status}: ${res.text.slice(0, 300)}`,
  ).toBeGreaterThanOrEqual(400);
  expect(res.status, `expected a 4xx, got ${res.status}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  // The suites use a key with a huge limit: a 429 here would mean the limiter miscounts.
  expect(res.status).not.toBe(429);
}

/** `{success:false, message, error:{code, details}, request_id}`, nothing else. */
export function expectJsonError(res: RawResponse): string {
  expectClientErrorStatus(res);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json as { error?: { code?: string } };
  expect(body, `not JSON: ${res.text.slice(0, 200)}`).toEqual({
    success: false,
    message: expect.any(String),
    error: { code: expect.stringMatching(/^[A-Z_]+$/), details: expect.any(Array) },
    request_id: res.headers['x-request-id'],
  });
  const code = body.error!.code as keyof typeof ERROR_STATUS;
  expect(ERROR_STATUS[code], `code ${code} is not a documented error code`).toBe(res.status);
  for (const d of (body as { error: { details: unknown[] } }).error.details) {
    expect(d).toEqual({ field: expect.any(String), message: expect.any(String) });
  }
  return code;
}

const XML_ERROR =
  /^<\?xml version="1\.0" encoding="UTF-8"\?><response><status>ERROR<\/status><code>([A-Z_]+)<\/code><message>[^<]*<\/message><request_id>([^<]*)<\/request_id><\/response>$/;

/** `<response><status>ERROR</status><code>…</code><message>…</message>…`. */
export function expectXmlError(res: RawResponse): string {
  expectClientErrorStatus(res);
  expect(res.headers['content-type']).toMatch(/^application\/xml/);
  const m = XML_ERROR.exec(res.text);
  expect(m, `not the XML error shape: ${res.text.slice(0, 300)}`).not.toBeNull();
  const code = m![1] as keyof typeof ERROR_STATUS;
  expect(ERROR_STATUS[code], `code ${code} is not a documented error code`).toBe(res.status);
  expect(m![2]).toBe(res.headers['x-request-id']);
  return code;
}

const XML_SUCCESS =
  /^<\?xml version="1\.0" encoding="UTF-8"\?><response><reference>(\d{19})<\/reference><status>SUCCESS<\/status>(?:<recipient>[^<]*<\/recipient>)+(?:<rejected><recipient>[^<]*<\/recipient><reason>[A-Z_]+<\/reason><\/rejected>)*<\/response>$/;

/** A 200 from the XML endpoint; returns its reference. */
export function expectXmlSuccess(res: RawResponse): string {
  expect(res.headers['content-type']).toMatch(/^application\/xml/);
  const m = XML_SUCCESS.exec(res.text);
  expect(m, `not the XML success shape: ${res.text.slice(0, 300)}`).not.toBeNull();
  return m![1];
}

const entryStatus = expect.stringMatching(/^(ACKNOWLEDGED|REJECTED)$/);

/** A 200 from the JSON SMS endpoint; returns api_reference. */
export function expectSmsSuccess(res: RawResponse): string {
  const body = res.json as { api_reference: string; data: unknown[] };
  expect(body).toEqual({
    api_reference: expect.stringMatching(/^\d{19}$/),
    data: expect.any(Array),
    message: 'successful',
    success: true,
  });
  expect(body.data.length).toBeGreaterThan(0);
  for (const d of body.data) {
    expect(d).toMatchObject({
      message_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      mobile_number: expect.any(String),
      status: entryStatus,
    });
  }
  return body.api_reference;
}

/** A 200 from the e-mail endpoint; returns api_reference. */
export function expectEmailSuccess(res: RawResponse): string {
  const body = res.json as { api_reference: string; data: unknown[] };
  expect(body).toEqual({
    api_reference: expect.stringMatching(/^\d{19}$/),
    data: expect.any(Array),
    message: 'successful',
    success: true,
  });
  for (const d of body.data) {
    expect(d).toMatchObject({
      email_address: expect.any(String),
      message_id: expect.stringMatching(/^\d+$/),
      status: entryStatus,
    });
  }
  return body.api_reference;
}

/** A 200 from the chat endpoint; returns reference. */
export function expectChatSuccess(res: RawResponse): string {
  const body = res.json as { reference: string };
  expect(body).toMatchObject({
    cost: expect.any(Number),
    count: expect.any(Number),
    currency: expect.stringMatching(/^[A-Z]{3}$/),
    estimated_delivery: expect.any(String),
    message: 'Chat messages queued successfully',
    reference: expect.stringMatching(/^\d{19}$/),
    status: 'success',
  });
  return body.reference;
}

/** A 200 from the balance endpoint. */
export function expectBalanceSuccess(res: RawResponse): void {
  expect(res.json).toMatchObject({
    status: 'success',
    currency: expect.any(String),
    total_value: expect.any(Number),
    balances: expect.any(Object),
  });
}

/** A generated case that prints short in a failure report (bodies can be megabytes). */
export function shortRepr<T extends object>(value: T): T {
  const text = (v: unknown): string => {
    if (Buffer.isBuffer(v))
      return `Buffer(${v.length}) ${JSON.stringify(v.subarray(0, 300).toString('latin1'))}`;
    if (typeof v === 'string')
      return v.length > 300 ? `${JSON.stringify(v.slice(0, 300))}… (${v.length} chars)` : JSON.stringify(v);
    return String(v);
  };
  Object.defineProperty(value, fc.toStringMethod, {
    enumerable: false,
    value: () =>
      `{ ${Object.entries(value)
        .map(([k, v]) => `${k}: ${text(v)}`)
        .join(', ')} }`,
  });
  return value;
}
