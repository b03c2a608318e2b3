import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the peer received it, with enough MIME parsed to assert on. */
export interface ReceivedMail {
  /** The From header, RFC 2047 words decoded. */
  from: string;
  /** MAIL FROM of the envelope. */
  envelopeFrom: string;
  /** RCPT TO addresses the peer accepted. */
  to: string[];
  raw: string;
  /** Top-level headers, lower-cased names, unfolded and decoded; the first of a repeated header. */
  headers: Record<string, string>;
  subject: string;
  html?: string;
  text?: string;
  messageId?: string;
  replyTo?: string;
}

export interface SmtpPeerOptions {
  /** Recipients refused at RCPT TO with 550 (compared case-insensitively). */
  rejectRecipients?: Set<string>;
  /** Recipients refused at RCPT TO with 451. */
  tempFailRecipients?: Set<string>;
  /** When set, the peer requires AUTH PLAIN/LOGIN with these credentials. */
  auth?: { user: string; pass: string };
}

export interface SmtpPeer {
  port: number;
  url: string;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/** A real SMTP server on 127.0.0.1 (random port) that records what it is given. Plain text, no STARTTLS. */
export async function startSmtpPeer(options: SmtpPeerOptions = {}): Promise<SmtpPeer> {
  const lower = (set?: Set<string>) => new Set([...(set ?? [])].map((a) => a.toLowerCase()));
  const reject = lower(options.rejectRecipients);
  const tempFail = lower(options.tempFailRecipients);
  const auth = options.auth;
  const messages: ReceivedMail[] = [];

  const server = new SMTPServer({
    secure: false,
    // Without credentials AUTH is not even advertised, so a client that has some does not try them.
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    // Lets close() finish quickly even while a pooled client keeps its connection open.
    closeTimeout: 200,
    onAuth(credentials, _session, callback) {
      if (auth && credentials.username === auth.user && credentials.password === auth.pass) {
        callback(null, { user: credentials.username });
      } else {
        callback(smtpError(535, 'Authentication failed'));
      }
    },
    onRcptTo(address, _session, callback) {
      const addr = address.address.toLowerCase();
      if (reject.has(addr))
        return callback(smtpError(550, `5.1.1 <${address.address}>: mailbox unavailable`));
      if (tempFail.has(addr)) return callback(smtpError(451, `4.7.1 <${address.address}>: try again later`));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        try {
          const mail = parseMail(raw);
          // Recorded before the 250 goes out, so a resolved send is already visible to the test.
          messages.push({
            ...mail,
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          });
          callback(null, `Message queued as peer-${messages.length}`);
        } catch (err) {
          callback(smtpError(554, `unparseable message: ${(err as Error).message}`));
        }
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  const url = auth
    ? `smtp://${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@127.0.0.1:${port}`
    : `smtp://127.0.0.1:${port}`;

  return {
    port,
    url,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---- minimal MIME: enough for what nodemailer writes (multipart/*, QP, base64, 7/8bit) ----

interface Part {
  headers: Record<string, string>;
  /** Body as a latin1 "binary" string, so every byte survives until the charset is known. */
  body: string;
}

/** Splits a latin1 string holding a header block + body; unfolds and records headers. */
function splitPart(binary: string): Part {
  const m = /\r?\n\r?\n/.exec(binary);
  const head = m ? binary.slice(0, m.index) : binary;
  const body = m ? binary.slice(m.index + m[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!(name in headers)) headers[name] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function parseContentType(value = 'text/plain'): { type: string; params: Record<string, string> } {
  const [type, ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { type: type.trim().toLowerCase(), params };
}

function decodeQuotedPrintable(binary: string): Buffer {
  const s = binary.replace(/[ \t]+(\r?\n)/g, '$1').replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(s.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function decodeCharset(bytes: Buffer, charset = 'utf-8'): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

function decodeBody(part: Part): string {
  const encoding = (part.headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'base64'
      ? Buffer.from(part.body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(part.body)
        : Buffer.from(part.body, 'latin1');
  return decodeCharset(bytes, parseContentType(part.headers['content-type']).params.charset);
}

/** RFC 2047 encoded words (=?utf-8?Q?…?= / =?utf-8?B?…?=), as nodemailer writes non-ASCII headers. */
function decodeHeader(binary: string): string {
  const value = binary.replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1');
  const word = /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g;
  let out = '';
  let last = 0;
  for (let m = word.exec(value); m; m = word.exec(value)) {
    // Text outside encoded words is raw bytes: UTF-8 when the client used SMTPUTF8.
    out += Buffer.from(value.slice(last, m.index), 'latin1').toString('utf8');
    const [, charset, enc, text] = m;
    const bytes =
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64')
        : decodeQuotedPrintable(text.replace(/_/g, ' '));
    out += decodeCharset(bytes, charset.replace(/\*.*$/, ''));
    last = m.index + m[0].length;
  }
  return out + Buffer.from(value.slice(last), 'latin1').toString('utf8');
}

function collectBodies(part: Part, out: { html?: string; text?: string }, depth = 0): void {
  const { type, params } = parseContentType(part.headers['content-type']);
  if (type.startsWith('multipart/') && params.boundary && depth < 10) {
    const delimiter = `\r\n--${params.boundary}`;
    // The CRLF before a delimiter belongs to the delimiter, hence the CRLF prepended to the body.
    const pieces = `\r\n${part.body.replace(/\r?\n/g, '\r\n')}`.split(delimiter);
    for (const piece of pieces.slice(1)) {
      if (piece.startsWith('--')) break;
      collectBodies(splitPart(piece.replace(/^[ \t]*\r\n/, '')), out, depth + 1);
    }
    return;
  }
  if ((part.headers['content-disposition'] ?? '').toLowerCase().startsWith('attachment')) return;
  if (type === 'text/html' && out.html === undefined) out.html = decodeBody(part);
  else if (type === 'text/plain' && out.text === undefined) out.text = decodeBody(part);
}

/** Parses a raw RFC 5322 message: top-level headers plus the first text/plain and text/html bodies. */
export function parseMail(raw: Buffer): Omit<ReceivedMail, 'envelopeFrom' | 'to'> {
  const top = splitPart(raw.toString('latin1'));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(top.headers)) {
    headers[k] = decodeHeader(v);
  }
  const bodies: { html?: string; text?: string } = {};
  collectBodies(top, bodies);
  return {
    from: headers.from ?? '',
    raw: raw.toString('utf8'),
    headers,
    subject: headers.subject ?? '',
    html: bodies.html,
    text: bodies.text,
    messageId: headers['message-id'],
    replyTo: headers['reply-to'],
  };
}
