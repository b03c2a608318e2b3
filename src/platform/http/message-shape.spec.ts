import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  ShapedRequest,
  ShapedResponse,
  declareRequestFields,
  declareResponseFields,
  declaredFields,
} from './message-shape.js';

describe('shaped requests and responses', () => {
  const socket = new Socket();

  it('own every declared field from construction, reading what they read before', () => {
    const req = new ShapedRequest(socket);
    const res = new ShapedResponse(req);
    for (const k of declaredFields().request) expect(Object.hasOwn(req, k)).toBe(true);
    for (const k of declaredFields().response) expect(Object.hasOwn(res, k)).toBe(true);
    expect((req as unknown as { body?: unknown }).body).toBeUndefined();
    // Inherited defaults are copied, not hidden.
    expect(res.statusCode).toBe(200);
    expect(res.statusMessage).toBeUndefined();
    expect((req as unknown as { _eventsCount: number })._eventsCount).toBe(0);
  });

  it('still count their listeners and write their status as Node does', () => {
    const req = new ShapedRequest(socket);
    req.on('data', () => undefined);
    req.on('end', () => undefined);
    expect(req.listenerCount('data')).toBe(1);
    expect((req as unknown as { _eventsCount: number })._eventsCount).toBeGreaterThanOrEqual(2);
    const res = new ShapedResponse(req);
    res.statusCode = 404;
    expect(res.statusCode).toBe(404);
  });

  it('take a field declared after the first object was made', () => {
    const marker = Symbol('late');
    declareRequestFields('lateField', marker);
    declareResponseFields('lateField');
    const req = new ShapedRequest(socket);
    expect(Object.hasOwn(req, 'lateField')).toBe(true);
    expect(Object.hasOwn(req, marker)).toBe(true);
    expect(Object.hasOwn(new ShapedResponse(req), 'lateField')).toBe(true);
  });
});
