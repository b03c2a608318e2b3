import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { sendError } from '../errors/error-body.js';

/** A top-level array longer than this is written a slice at a time. */
export const SLICED_ABOVE = 10_000;
const SLICE = 5_000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The JSON text of `body` with its array `key` stringified SLICE entries at a time, yielding to
 * the event loop in between: the same text as JSON.stringify(body), in tasks of a few
 * milliseconds instead of one of about a hundred (a 100,000-recipient answer is ~8 MB).
 */
export async function stringifyInSlices(body: Record<string, unknown>, key: string): Promise<string> {
  const items = body[key] as unknown[];
  // The other fields as JSON.stringify writes them, in their order, with a token where the
  // array goes (random, so no other value holds it).
  const token = `"@slices:${randomBytes(12).toString('hex')}"`;
  const frame = JSON.stringify({ ...body, [key]: JSON.parse(token) as string });
  const at = frame.indexOf(token);
  const parts: string[] = [frame.slice(0, at), '['];
  for (let i = 0; i < items.length; i += SLICE) {
    if (i > 0) {
      await yieldToLoop();
      parts.push(',');
    }
    parts.push(JSON.stringify(items.slice(i, i + SLICE)).slice(1, -1));
  }
  parts.push(']', frame.slice(at + token.length));
  return parts.join('');
}

function bigArrayKey(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  for (const [key, value] of Object.entries(body))
    if (Array.isArray(value) && value.length > SLICED_ABOVE) return key;
  return undefined;
}

/**
 * `res.json` for answers with a very long top-level array (one entry per recipient of a
 * 100,000-recipient send): their text is built in slices (stringifyInSlices), so other
 * requests are served meanwhile rather than waiting for one long JSON.stringify. Every other
 * answer goes through Express's own `res.json` unchanged. Set once on the app's response
 * prototype (`app.response`), not on each response.
 */
export function sliceLargeJson(response: Response): void {
  const json = response.json;
  response.json = function (this: Response, body?: unknown) {
    const key = bigArrayKey(body);
    if (key === undefined) return json.call(this, body);
    stringifyInSlices(body as Record<string, unknown>, key).then(
      (text) => {
        if (this.headersSent) return;
        if (!this.get('Content-Type')) this.type('application/json');
        this.send(text);
      },
      () => sendError(this.req, this, 500, 'INTERNAL_ERROR', 'The answer could not be written.'),
    );
    return this;
  };
}
