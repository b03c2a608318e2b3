import { rootCertificates } from 'node:tls';
import { createTransport, type NodemailerError, type SendMailOptions, type Transporter } from 'nodemailer';
import { parseSender } from '../../messages/email-sender.js';
import { classifySmtpError } from './smtp-errors.js';
import type {
  OutboundMessage,
  ReportHandler,
  Transport,
  TransportHealth,
  TransportResult,
} from './transport.js';
import { within } from '../../../platform/timing/within.js';

export { classifySmtpError } from './smtp-errors.js';

export interface SmtpTlsOptions {
  /** required: STARTTLS (or smtps://) or no delivery; opportunistic: STARTTLS when offered; off: never. */
  mode: 'required' | 'opportunistic' | 'off';
  /** PEM certificates trusted beside the system's CAs (a private CA, or a self-signed server). */
  ca?: string;
  rejectUnauthorized?: boolean;
}

export interface SmtpTransportOptions {
  /** smtp://user:pass@host:port or smtps://…; credentials percent-encoded. */
  url: string;
  /** Address used in From when a message's sender is a bare name rather than an address. */
  from?: string;
  pool: { maxConnections: number; maxMessages: number };
  /** Connect, greeting and socket-inactivity timeout. */
  timeoutMs?: number;
  tls?: SmtpTlsOptions;
  /** A pooled connection idle this long says QUIT and closes; 0 keeps it open. */
  idleMs?: number;
  /** Right-hand side of Message-ID; default: the sender address's domain. */
  messageIdDomain?: string;
  /** Name given in EHLO; default (nodemailer's): the host name when qualified, else [127.0.0.1]. */
  ehloName?: string;
}

const HEALTH_TIMEOUT_MS = 800;
const DEFAULT_TIMEOUT_MS = 30_000;
/** How long close() waits for the servers' answers to QUIT. */
const QUIT_WAIT_MS = 1000;
const ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+$/;

/** nodemailer's connection settings for our TLS policy (the same for sending and probing). */
function connectionOptions(options: SmtpTransportOptions) {
  const tls = options.tls ?? { mode: 'required' };
  return {
    url: options.url,
    ...(options.ehloName ? { name: options.ehloName } : {}),
    requireTLS: tls.mode === 'required',
    ignoreTLS: tls.mode === 'off',
    // A `ca` replaces Node's trust store: keep the public CAs beside the private one.
    tls: {
      rejectUnauthorized: tls.rejectUnauthorized ?? true,
      ...(tls.ca ? { ca: [...rootCertificates, tls.ca] } : {}),
    },
  };
}

interface PoolInternals {
  _connections?: Array<{
    available?: boolean;
    connection?: { quit(): void };
    once?(event: 'close', fn: () => void): void;
  }>;
}

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
      ...connectionOptions(options),
      pool: true,
      maxConnections: options.pool.maxConnections,
      maxMessages: options.pool.maxMessages,
      // The pool says QUIT to a connection idle this long, before the server drops it mid-silence.
      idleTimeout: options.idleMs ?? 60_000,
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
    const from = this.fromFor(message.sender);
    const messageId = this.messageIdFor(message, typeof from === 'string' ? from : from.address);
    const mail: SendMailOptions = {
      from,
      to: message.recipient,
      subject: message.subject ?? '',
      // base64 carries the body's bytes as they are, even plain ASCII: 7bit and quoted-printable
      // pass through SMTP's line-ending rules, which turn a bare LF into CRLF.
      html: { content: message.body, contentTransferEncoding: 'base64' } as SendMailOptions['html'],
      text: htmlToText(message.body),
      messageId,
      headers: { 'X-Message-Id': message.id, ...message.headers },
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

  /**
   * `<message_id.api_reference@domain>`: the API's own ids, so a bounce, a reply or the MTA's log
   * can be matched to the message without a lookup table.
   */
  private messageIdFor(message: OutboundMessage, fromAddress: string): string {
    const domain = this.options.messageIdDomain ?? fromAddress.slice(fromAddress.lastIndexOf('@') + 1);
    const local = message.apiReference ? `${message.id}.${message.apiReference}` : message.id;
    return `<${local}@${domain || 'localhost'}>`;
  }

  private fromFor(sender: string): { name: string; address: string } | string {
    const parsed = parseSender(sender);
    if (parsed) return parsed.name ? { name: parsed.name, address: parsed.address } : parsed.address;
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
    // A separate, unpooled transporter with short timeouts and the same TLS policy, so a probe
    // that loses the race leaves no half-open connection and a certificate we refuse shows here.
    const probe = createTransport({
      ...connectionOptions(this.options),
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
      const result = classifySmtpError(err as NodemailerError);
      const cause =
        result.kind === 'transient' && result.configuration
          ? `${result.reason}, fix the configuration: `
          : '';
      return {
        status: 'down',
        message: `SMTP server ${this.endpoint} unusable: ${cause}${(err as Error).message}`,
        response_time_ms: Date.now() - started,
      };
    } finally {
      clearTimeout(timer);
      probe.close();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // A connection that just finished a message is handed back to the pool on the next turn.
    await new Promise((r) => setImmediate(r));
    // nodemailer's close() drops idle connections without QUIT; say goodbye first. The pool's
    // connection list is internal, hence the defensive reading.
    const idle = ((this.transporter.transporter as PoolInternals)._connections ?? []).filter(
      (c) => c.available && c.connection,
    );
    const closed = idle.map(
      (c) => new Promise<void>((resolve) => (c.once ? c.once('close', resolve) : resolve())),
    );
    for (const c of idle) {
      c.available = false;
      c.connection!.quit();
    }
    if (idle.length) await within(Promise.all(closed), QUIT_WAIT_MS);
    this.transporter.close();
  }
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
