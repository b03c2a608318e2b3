import type { Request, Response } from 'express';
import { xmlErrorBody } from '../xml/xml-codec.js';
import type { ErrorCode, ErrorDetail } from './error-codes.js';

export interface ErrorEnvelope {
  success: false;
  message: string;
  error: { code: ErrorCode; details: ErrorDetail[] };
  request_id: string;
}

export function isXmlRoute(req: Request): boolean {
  return req.path.startsWith('/api/v1/xml/');
}

/** Writes the one error shape, in XML on the XML routes. */
export function sendError(
  req: Request,
  res: Response,
  status: number,
  code: ErrorCode,
  message: string,
  details: ErrorDetail[] = [],
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const requestId = String(res.getHeader('X-Request-Id') ?? '');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status);
  if (isXmlRoute(req)) {
    res.type('application/xml').send(xmlErrorBody(code, message, requestId));
    return;
  }
  const body: ErrorEnvelope = { success: false, message, error: { code, details }, request_id: requestId };
  res.json(body);
}
