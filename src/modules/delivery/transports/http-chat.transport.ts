import type {
  OutboundMessage,
  ReportHandler,
  Transport,
  TransportHealth,
  TransportResult,
} from './transport.js';

export interface HttpChatTransportOptions {
  url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string;
  timeoutMs?: number;
  /** Requests in flight at once, per send() call. */
  concurrency?: number;
}

const HEALTH_TIMEOUT_MS = 800;
const CONFIGURATION_NETWORK =
  /^HTTP_NETWORK_(ENOTFOUND|.*CERT.*|.*SELF_SIGNED.*|UNABLE_TO_VERIFY.*|UNABLE_TO_GET_ISSUER.*)$/;

/** Chat messages handed to an HTTP JSON API, one POST per message. */
export class HttpChatTransport implements Transport {
  readonly name = 'http';
  private readonly url: string;
  private readonly token?: string;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private reportHandler?: ReportHandler;
  private closed = false;

  constructor(options: HttpChatTransportOptions) {
    this.url = new URL(options.url).toString();
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 16));
  }

  async send(messages: OutboundMessage[]): Promise<TransportResult[]> {
    if (this.closed) return messages.map(() => ({ kind: 'transient', reason: 'TRANSPORT_CLOSED' }));
    const results = new Array<TransportResult>(messages.length);
    let next = 0;
    const lane = async () => {
      while (next < messages.length) {
        const i = next++;
        results[i] = await this.sendOne(messages[i]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, messages.length) }, lane));
    return results;
  }

  private async sendOne(message: OutboundMessage): Promise<TransportResult> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      // Lets the provider drop the duplicate when a timed-out attempt did get through.
      'Idempotency-Key': message.uuid,
    };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          message_id: message.uuid,
          to: message.recipient,
          from: message.sender,
          text: message.body,
        }),
        signal: AbortSignal.timeout(this.timeoutMs),
        // A redirect on a send API is a configuration problem; following it would re-POST
        // (or turn the POST into a GET) somewhere we were not told to send.
        redirect: 'manual',
      });
    } catch (err) {
      const reason = networkReason(err);
      // A name that does not resolve or a certificate we refuse: no retry heals these.
      if (CONFIGURATION_NETWORK.test(reason))
        return { kind: 'transient', reason, detail: errorSummary(err), configuration: true };
      return { kind: 'transient', reason };
    }

    let text = '';
    try {
      // Read in full even when unused, so the keep-alive connection can be reused.
      text = await response.text();
    } catch {
      // The status line already said what happened; a 2xx whose body broke off was still taken
      // (and a retry would be deduplicated by the Idempotency-Key anyway).
    }

    const status = response.status;
    if (status >= 200 && status < 300) {
      return { kind: 'accepted', providerMessageId: providerId(text) ?? message.uuid };
    }
    if (status === 408 || status === 429 || status >= 500)
      return { kind: 'transient', reason: `HTTP_${status}` };
    // Our token refused: every message would be, so it is the configuration, not this message.
    if (status === 401 || status === 407) {
      return {
        kind: 'transient',
        reason: `HTTP_${status}`,
        detail: `the chat API refused our credentials: ${text.slice(0, 200)}`,
        configuration: true,
      };
    }
    if (status >= 400) return { kind: 'permanent', reason: `HTTP_${status}` };
    // 1xx/3xx: nothing says the message itself is bad; the long backoff of a configuration
    // failure gives the operator time to fix the URL.
    return {
      kind: 'transient',
      reason: `HTTP_${status}`,
      detail: `unexpected answer ${status} from ${this.url}`,
      configuration: true,
    };
  }

  /** This API answers synchronously and sends no delivery reports; the handler is kept but never called. */
  onReport(handler: ReportHandler): void {
    this.reportHandler = handler;
  }

  async health(): Promise<TransportHealth> {
    const origin = new URL(this.url).origin;
    const started = Date.now();
    const deadline = started + HEALTH_TIMEOUT_MS;
    const probe = async (method: 'HEAD' | 'GET') => {
      const res = await fetch(origin, {
        method,
        redirect: 'manual',
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      });
      await res.body?.cancel();
      return res.status;
    };
    try {
      let status: number;
      try {
        status = await probe('HEAD');
      } catch (err) {
        // Some servers drop HEAD requests outright; a GET tells reachable from unreachable.
        if (isTimeout(err) || Date.now() >= deadline) throw err;
        status = await probe('GET');
      }
      // Any HTTP answer, even 404 or 401, proves the provider is there and talking HTTP.
      return {
        status: 'up',
        message: `chat API ${origin} answered HTTP ${status}`,
        response_time_ms: Date.now() - started,
      };
    } catch (err) {
      return {
        status: 'down',
        message: `chat API ${origin} unreachable: ${isTimeout(err) ? `no answer within ${HEALTH_TIMEOUT_MS} ms` : errorSummary(err)}`,
        response_time_ms: Date.now() - started,
      };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function providerId(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as unknown;
    if (json && typeof json === 'object') {
      const { id, message_id } = json as { id?: unknown; message_id?: unknown };
      for (const v of [id, message_id]) {
        if ((typeof v === 'string' && v.length > 0) || typeof v === 'number') return String(v);
      }
    }
  } catch {
    // Not JSON: the provider accepted but gave no id; the caller falls back to ours.
  }
  return undefined;
}

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

function networkReason(err: unknown): string {
  if (isTimeout(err)) return 'HTTP_TIMEOUT';
  const code = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === 'string' ? `HTTP_NETWORK_${code}` : 'HTTP_NETWORK_ERROR';
}

function errorSummary(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | null)?.cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
