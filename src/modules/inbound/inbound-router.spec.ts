import { describe, expect, it } from 'vitest';
import { route } from './inbound-router.js';

const shared = [
  { account_id: '1', keyword: 'ACME' },
  { account_id: '2', keyword: 'BETA' },
];

describe('inbound routing', () => {
  it('routes a shared short code by the first word, in any case', () => {
    expect(route(shared, 'beta hello')).toEqual({ accountIds: ['2'], opt: null, keyword: 'BETA' });
  });

  it('reads STOP after a short-code keyword and records STOP as the keyword', () => {
    expect(route(shared, 'Acme stop')).toEqual({ accountIds: ['1'], opt: 'STOP', keyword: 'STOP' });
  });

  it('sends a STOP that names no keyword to every account sharing the code', () => {
    expect(route(shared, 'STOP')).toEqual({ accountIds: ['1', '2'], opt: 'STOP', keyword: 'STOP' });
  });

  it('gives the whole-number owner everything no keyword claims', () => {
    const routes = [...shared, { account_id: '3', keyword: '' }];
    expect(route(routes, 'hello there')).toEqual({ accountIds: ['3'], opt: null, keyword: null });
    expect(route(routes, 'unsubscribe')).toEqual({ accountIds: ['3'], opt: 'STOP', keyword: 'STOP' });
  });

  it('routes nowhere a plain text to a shared code without an owner, or to an unknown number', () => {
    expect(route(shared, 'hello')).toBeNull();
    expect(route([], 'STOP')).toBeNull();
  });
});
