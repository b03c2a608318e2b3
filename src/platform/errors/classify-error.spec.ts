import { HttpException, NotFoundException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { describe, expect, it } from 'vitest';
import { AppException } from './app.exception.js';
import { classifyError } from './classify-error.js';

describe('classifyError', () => {
  it('keeps an AppException as thrown, with its details and headers', () => {
    const err = new AppException('INSUFFICIENT_BALANCE', 'cannot pay', [{ field: 'balance', message: 'x' }], {
      'Retry-After': '1',
    });
    expect(classifyError(err)).toEqual({
      status: err.status,
      code: 'INSUFFICIENT_BALANCE',
      message: 'cannot pay',
      details: [{ field: 'balance', message: 'x' }],
      headers: { 'Retry-After': '1' },
      unexpected: false,
    });
  });

  it('maps body-parser errors by their type, directly or as the cause of an HttpException', () => {
    const parse = Object.assign(new Error('bad'), { type: 'entity.parse.failed' });
    expect(classifyError(parse)).toMatchObject({ status: 400, code: 'MALFORMED_BODY', details: [] });
    const wrapped = new HttpException('x', 413, { cause: { type: 'entity.too.large' } });
    expect(classifyError(wrapped)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('takes a type that only the prototype knows ("constructor") for an unexpected error', () => {
    const odd = Object.assign(new Error('odd'), { type: 'constructor' });
    expect(classifyError(odd)).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', unexpected: true });
  });

  it('answers the rate limit, unknown routes, unavailable backends and anything else', () => {
    expect(classifyError(new ThrottlerException())).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(classifyError(new NotFoundException())).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const down = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(classifyError(down)).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'Retry-After': '5' },
      unexpected: true,
    });
    expect(classifyError(new Error('boom'))).toMatchObject({
      status: 500,
      code: 'INTERNAL_ERROR',
      details: [],
    });
  });
});
