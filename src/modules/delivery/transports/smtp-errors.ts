import type { NodemailerError } from 'nodemailer';
import type { TransportResult } from './transport.js';

/** Certificate and handshake failures as Node's TLS layer names them. */
const TLS_CERT_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS_CERT/;
const TLS_HANDSHAKE_CODES = /^ERR_SSL|^ERR_TLS|EPROTO/;

function detailOf(err: NodemailerError): string {
  return (err.message || String(err.code ?? 'error')).replace(/\s+/g, ' ').slice(0, 300);
}

/**
 * What an SMTP failure means for the message:
 * - 5xx to this message: refused for good (→ permanent). 503 "bad sequence of commands" is the
 *   exception RFC 5321 and nodemailer both make: the session was in a wrong state, so it is retried.
 * - 4xx, dropped connections, timeouts, a refused connection: may pass later (→ transient).
 * - a certificate we do not trust, STARTTLS missing while required, credentials refused, a host
 *   name that does not resolve: no retry heals these until someone changes the configuration or
 *   the server's setup (→ transient, flagged `configuration`, so they are logged at error and
 *   named by the health check instead of burning retries in silence).
 */
export function classifySmtpError(err: NodemailerError): TransportResult {
  const detail = detailOf(err);
  const original = String(err.originalCode ?? '');
  const configuration = (reason: string): TransportResult => ({
    kind: 'transient',
    reason,
    detail,
    configuration: true,
  });

  if (err.code === 'EAUTH' || err.code === 'ENOAUTH') {
    // 454 4.7.0 "temporary authentication failure" is the server's problem of the moment.
    if (typeof err.responseCode === 'number' && err.responseCode < 500)
      return { kind: 'transient', reason: `SMTP_${err.responseCode}`, detail };
    return configuration('SMTP_AUTH_REFUSED');
  }
  if (TLS_CERT_CODES.test(original) || /certificate/i.test(err.message))
    return configuration('SMTP_TLS_CERTIFICATE');
  if (err.code === 'ETLS' || err.code === 'EREQUIRETLS') return configuration('SMTP_TLS_UNAVAILABLE');
  if (TLS_HANDSHAKE_CODES.test(original)) return configuration('SMTP_TLS_HANDSHAKE');
  if (err.code === 'EDNS' || original === 'ENOTFOUND') {
    // EAI_AGAIN is a resolver that did not answer now, not a name that does not exist.
    if (original === 'EAI_AGAIN') return { kind: 'transient', reason: 'SMTP_DNS_TIMEOUT', detail };
    return configuration('SMTP_HOST_UNKNOWN');
  }

  const code = err.responseCode;
  if (typeof code === 'number') {
    if (code >= 500 && code < 600 && code !== 503) {
      // RFC 3463: 5.1.x is about the address (no such mailbox, bad destination), not this message.
      const mailboxRefused = /(?:^|[\s-])5\.1\.\d{1,3}(?:\s|$)/.test(String(err.response ?? err.message));
      return {
        kind: 'permanent',
        reason: `SMTP_${code}`,
        detail,
        ...(mailboxRefused ? { mailboxRefused } : {}),
      };
    }
    return { kind: 'transient', reason: `SMTP_${code}`, detail };
  }
  // nodemailer refuses an unparseable address before talking to the server; retrying cannot help.
  if (err.code === 'EENVELOPE') return { kind: 'permanent', reason: 'SMTP_INVALID_ENVELOPE', detail };
  if (err.code === 'ETIMEDOUT') return { kind: 'transient', reason: 'SMTP_TIMEOUT', detail };
  return { kind: 'transient', reason: `SMTP_${err.originalCode ?? err.code ?? 'ERROR'}`, detail };
}
