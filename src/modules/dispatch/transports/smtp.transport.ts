import { createTransport, type NodemailerError, type SendMailOptions, type Transporter } from 'nodemailer';
import type {
  OutboundMessage,
  ReportHandler,
  Transport,
  TransportHealth,
  TransportResult,
} from './transport.js';

export interface SmtpTransportOptions {
  /** smtp://user:pass@host:port or smtps://…; credentials percent-encoded. */
  url: string;
  /** Address used in From when a message's sender is a bare name rather than an address. */
  from?: string;
  pool: { maxConnections: number; maxMessages: number };
  /** Connect, greeting and socket-inactivity timeout. */
  timeoutMs?: number;
}

const HEALTH_TIMEOUT_MS = 800;
const DEFAULT_TIMEOUT_MS = 30_000;
const ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+$/;

/** Pooled SMTP delivery through nodemailer: one message per recipient, many in flight. */
export class SmtpTransport implements Transport {
  readonly name = 'smtp';
  private readonly transporter: Transporter;
  private readonly endpoint: string;
  private reportHandler?: ReportHandler;
  private closed = false;

  constructor(private readonly options: SmtpTransportOptions) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // nodemailer's second createTransport argument is message defaults, not transport options:
    // the pool settings must travel with the url in the first argument or the pool is never built.
    this.transporter = createTransport({
      url: options.url,
      pool: true,
      maxConnections: options.pool.maxConnections,
      maxMessages: options.pool.maxMessages,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    this.endpoint = describeEndpoint(options.url);
  }

  async send(messages: OutboundMessage[]): Promise<TransportResult[]> {
    if (this.closed) return messages.map(() => ({ kind: 'transient', reason: 'TRANSPORT_CLOSED' }));
    // The pool queues what it cannot start yet, so at most maxConnections are on the wire.
    return Promise.all(messages.map((m) => this.sendOne(m)));
  }

  private async sendOne(message: OutboundMessage): Promise<TransportResult> {
    const messageId = `<${message.uuid}@bulk-messaging>`;
    const mail: SendMailOptions = {
      from: this.fromFor(message.sender),
      to: message.recipient,
      subject: message.subject ?? '',
      html: message.body,
      text: htmlToText(message.body),
      messageId,
      headers: { 'X-Message-Id': message.uuid },
    };
    if (message.replyTo) mail.replyTo = message.replyTo;
    try {
      await this.transporter.sendMail(mail);
      // Our own Message-ID, not the server's queue id: it is what a bounce or reply quotes back.
      return { kind: 'accepted', providerMessageId: messageId };
    } catch (err) {
      return classifySmtpError(err as NodemailerError);
    }
  }

  private fromFor(sender: string): SendMailOptions['from'] {
    if (ADDRESS.test(sender.trim()) || !this.options.from) return sender;
    // A sender that is only a name ("ACME") becomes the display name of the configured address.
    return { name: sender, address: this.options.from };
  }

  /** SMTP gives no delivery reports on this path (bounces arrive later, by mail), so the handler is kept but never called. */
  onReport(handler: ReportHandler): void {
    this.reportHandler = handler;
  }

  async health(): Promise<TransportHealth> {
    const started = Date.now();
    // A separate, unpooled transporter with short timeouts, so a probe that loses the race
    // does not leave a half-open connection around for the full send timeout.
    const probe = createTransport({
      url: this.options.url,
      connectionTimeout: HEALTH_TIMEOUT_MS,
      greetingTimeout: HEALTH_TIMEOUT_MS,
      socketTimeout: HEALTH_TIMEOUT_MS,
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        probe.verify(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)),
            HEALTH_TIMEOUT_MS,
          );
          timer.unref();
        }),
      ]);
      return {
        status: 'up',
        message: `SMTP server ${this.endpoint} answered`,
        response_time_ms: Date.now() - started,
      };
    } catch (err) {
      return {
        status: 'down',
        message: `SMTP server ${this.endpoint} unreachable: ${(err as Error).message}`,
        response_time_ms: Date.now() - started,
      };
    } finally {
      clearTimeout(timer);
      probe.close();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.transporter.close();
  }
}

/**
 * 5xx replies are refusals of this message (→ permanent); 4xx, dropped connections and timeouts
 * may pass on a later attempt (→ transient). 503 "bad sequence of commands" is the exception
 * RFC 5321 and nodemailer both make: it says the session was in a wrong state, not that the
 * message was refused, so it is retried.
 */
export function classifySmtpError(err: NodemailerError): TransportResult {
  const code = err.responseCode;
  if (typeof code === 'number') {
    if (code >= 500 && code < 600 && code !== 503) return { kind: 'permanent', reason: `SMTP_${code}` };
    return { kind: 'transient', reason: `SMTP_${code}` };
  }
  // nodemailer refuses an unparseable address before talking to the server; retrying cannot help.
  if (err.code === 'EENVELOPE') return { kind: 'permanent', reason: 'SMTP_INVALID_ENVELOPE' };
  if (err.code === 'ETIMEDOUT') return { kind: 'transient', reason: 'SMTP_TIMEOUT' };
  return { kind: 'transient', reason: `SMTP_${err.originalCode ?? err.code ?? 'ERROR'}` };
}

/** host:port for messages, without the credentials the url carries. */
function describeEndpoint(url: string): string {
  try {
    const u = new URL(url);
    const secure = u.protocol === 'smtps:';
    return `${u.hostname}:${u.port || (secure ? 465 : 587)}`;
  } catch {
    return '(unparseable SMTP_URL)';
  }
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  euro: '€',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/**
 * The plain-text alternative of an HTML body: what a text-only mail client (or a spam filter
 * comparing the two parts) should see. Block elements become line breaks, links keep their
 * target, and whitespace is collapsed the way a browser would.
 */
export function htmlToText(html: string): string {
  let s = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(
      /<a\b[^>]*?\bhref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi,
      (_m, _q, d, s1, b, inner: string) => {
        const rawHref = String(d ?? s1 ?? b ?? '').trim();
        const href = decodeEntities(rawHref);
        const label = inner.replace(/<[^>]*>/g, '').trim();
        const shown = decodeEntities(label).trim();
        if (!/^(https?:|mailto:)/i.test(href) || shown === href || shown === href.replace(/^mailto:/i, ''))
          return label;
        // Left encoded: the whole text is decoded once at the end.
        return `${label} (${rawHref})`;
      },
    );
  // Source line breaks are just whitespace in HTML; only markup makes lines.
  s = s.replace(/\s+/g, ' ');
  s = s
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(
      /<\/?(p|div|h[1-6]|ul|ol|table|tr|blockquote|pre|section|article|header|footer|hr)\b[^>]*>/gi,
      '\n\n',
    )
    .replace(/<\/(td|th)\s*>/gi, ' ')
    .replace(/<[^>]*>/g, '');
  s = decodeEntities(s);
  return s
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
