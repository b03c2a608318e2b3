import { lowerCase } from './convert.js';
import { bool, int, oneOf, text } from './define.js';

const HOST_LABEL = '[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?';

/** How messages leave: the transport of each channel and its provider's settings. */
export const transportSettings = {
  SMS_TRANSPORT: oneOf(['sandbox', 'smpp'], {
    path: 'transports.sms',
    default: 'sandbox',
    doc: '`sandbox` or `smpp` (see [Providers](providers.md))',
  }),
  EMAIL_TRANSPORT: oneOf(['sandbox', 'smtp'], {
    path: 'transports.email',
    default: 'sandbox',
    doc: '`sandbox` or `smtp` (see [Providers](providers.md))',
  }),
  CHAT_TRANSPORT: oneOf(['sandbox', 'http'], {
    path: 'transports.chat',
    default: 'sandbox',
    doc: '`sandbox` or `http` (see [Providers](providers.md))',
  }),
  SANDBOX_DELIVERY_DELAY_MS: int({
    path: 'sandboxDeliveryDelayMs',
    min: 0,
    max: 600_000,
    default: 1000,
    doc: 'sandbox: time from SENT to the delivery report',
  }),
  SMPP_URL: text({
    path: 'smppUrl',
    pattern: /^smpps?:\/\/[^\s]+$/,
    message: 'must look like smpp://system_id:password@host:2775',
    example: 'smpp://system_id:password@127.0.0.1:2775',
    doc: 'the default SMPP connector (destinations no route matches; optional when connectors serve them all)',
  }),
  SMPP_TPS: int({
    path: 'smppTps',
    min: 0,
    max: 100_000,
    default: 0,
    doc: "the default connector's throughput cap over all workers together (0 = no cap)",
  }),
  SMPP_WINDOW: int({
    path: 'smppWindow',
    min: 1,
    max: 1000,
    default: 100,
    doc: "the default connector's submit window per bind",
  }),
  SMPP_RESPONSE_TIMEOUT_MS: int({
    path: 'smppResponseTimeoutMs',
    min: 100,
    max: 600_000,
    default: 10_000,
    doc: 'SMPP: wait for a `submit_sm_resp` (or `enquire_link_resp`) before logging it late',
  }),
  SMPP_LATE_RESPONSE_WAIT_MS: int({
    path: 'smppLateResponseWaitMs',
    min: 0,
    max: 3_600_000,
    default: 300_000,
    doc: 'SMPP: after that, how much longer a late `submit_sm_resp` is waited for before the message is recorded `SENT` without an id (`0`: resend at the timeout instead)',
  }),
  SMPP_RECEIPT_ID_FORMAT: oneOf(['auto', 'hex', 'decimal', 'string'], {
    path: 'smppReceiptIdFormat',
    default: 'auto',
    doc: 'SMPP: how receipt ids are compared with `submit_sm_resp` ids: `auto`, `hex`, `decimal`, `string` (see Providers)',
  }),
  SMPP_UNMATCHED_RECEIPT_TTL_MS: int({
    path: 'smppUnmatchedReceiptTtlMs',
    min: 1000,
    max: 604_800_000,
    default: 86_400_000,
    doc: 'SMPP: how long a receipt that matches no message is kept for late matching',
  }),
  SMTP_URL: text({
    path: 'smtpUrl',
    pattern: /^smtps?:\/\/[^\s]+$/,
    message: 'must look like smtp://user:password@host:587 (required when EMAIL_TRANSPORT=smtp)',
    requiredIf: (env) => env.EMAIL_TRANSPORT === 'smtp',
    example: 'smtp://user:password@127.0.0.1:587',
    doc: 'SMTP server for `EMAIL_TRANSPORT=smtp`',
  }),
  SMTP_TLS: oneOf(['required', 'opportunistic', 'off'], {
    path: 'smtp.tls',
    default: 'required',
    doc: '`required`, `opportunistic` or `off` (see [SMTP](providers.md#smtp-e-mail))',
  }),
  SMTP_TLS_CA: text({
    path: 'smtp.caPath',
    pattern: /^\S+$/,
    message: 'must be the path of a PEM file of CA certificates',
    example: '/etc/ssl/private-ca.pem',
    doc: "PEM file of CA certificates trusted for the SMTP server, beside the system's",
  }),
  SMTP_TLS_REJECT_UNAUTHORIZED: bool({
    path: 'smtp.rejectUnauthorized',
    default: true,
    doc: '`false` accepts any SMTP server certificate',
  }),
  SMTP_POOL_IDLE_MS: int({
    path: 'smtp.poolIdleMs',
    min: 0,
    max: 3_600_000,
    default: 60_000,
    doc: 'a pooled SMTP connection idle this long says `QUIT` and closes (0 = never)',
  }),
  EMAIL_MESSAGE_ID_DOMAIN: text({
    path: 'smtp.messageIdDomain',
    to: lowerCase,
    pattern: new RegExp(`^(?=.{1,253}$)(${HOST_LABEL}\\.)*${HOST_LABEL}$`),
    message: 'must be a domain name such as mail.acme.example',
    defaultText: "the sender's domain",
    example: 'mail.acme.example',
    doc: "right-hand side of each e-mail's `Message-ID`",
  }),
  SMTP_EHLO_NAME: text({
    path: 'smtp.ehloName',
    to: lowerCase,
    pattern: new RegExp(`^(?=.{1,253}$)(${HOST_LABEL}\\.)+${HOST_LABEL}$`),
    message: 'must be a fully qualified host name such as mailer.acme.example',
    defaultText: "this host's name when fully qualified, else `[127.0.0.1]`",
    example: 'mailer.acme.example',
    doc: 'the name given in `EHLO`',
  }),
  CHAT_API_URL: text({
    path: 'chatApiUrl',
    pattern: /^https?:\/\/[^\s]+$/,
    message: 'must be an http(s) URL (required when CHAT_TRANSPORT=http)',
    requiredIf: (env) => env.CHAT_TRANSPORT === 'http',
    example: 'https://chat.example.com/v1/messages',
    doc: 'HTTP chat provider: where messages are posted',
  }),
  CHAT_API_TOKEN: text({
    path: 'chatApiToken',
    doc: 'HTTP chat provider: the bearer token sent with each message',
  }),
};
