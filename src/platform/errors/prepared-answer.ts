import type { Response } from 'express';

/**
 * A complete answer decided before the handler ran (a stored answer replayed), thrown so that
 * nothing after it runs; the error filter writes it as it is, not as an error envelope.
 */
export class PreparedAnswer extends Error {
  constructor(
    readonly status: number,
    readonly contentType: string | null,
    readonly body: Buffer,
    readonly headers: Record<string, string> = {},
  ) {
    super(`prepared answer ${status}`);
    this.name = 'PreparedAnswer';
  }

  write(res: Response): void {
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(this.headers)) res.setHeader(k, v);
    if (this.contentType) res.setHeader('Content-Type', this.contentType);
    res.status(this.status).send(this.body);
  }
}
