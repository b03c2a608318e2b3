import net from 'node:net';

/**
 * A plain TCP connection to the app, for what an HTTP client library hides: slow clients,
 * several requests on one kept-alive connection, and when exactly the server hangs up.
 */
export class RawConnection {
  private buffer = '';
  private readonly socket: net.Socket;
  private readonly openedAt = Date.now();
  /** Milliseconds from connecting to the server ending (FIN) or dropping the connection. */
  readonly closed: Promise<number>;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (d: string) => (this.buffer += d));
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => {
      const done = () => resolve(Date.now() - this.openedAt);
      this.socket.on('end', done);
      this.socket.on('close', done);
    });
  }

  get received(): string {
    return this.buffer;
  }

  write(text: string): void {
    if (!this.socket.destroyed) this.socket.write(text);
  }

  /** Writes `text` a piece at a time, `everyMs` apart, until done or the connection closes. */
  async drip(text: string, everyMs: number): Promise<void> {
    for (const ch of text) {
      if (this.socket.destroyed || this.socket.writableEnded) return;
      this.write(ch);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  /** Resolves once the received text holds `count` complete responses (Content-Length bodies). */
  async responses(count: number, timeoutMs = 5000): Promise<Array<{ head: string; body: string }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponses(this.buffer);
      if (parsed.length >= count) return parsed.slice(0, count);
      if (Date.now() > deadline)
        throw new Error(`wanted ${count} responses, got: ${JSON.stringify(this.buffer.slice(0, 500))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function parseResponses(text: string): Array<{ head: string; body: string }> {
  const out: Array<{ head: string; body: string }> = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return out;
    const head = rest.slice(0, end);
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (rest.length < end + 4 + length) return out;
    out.push({ head, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
}
