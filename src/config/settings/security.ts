import { kbToBytes, parseRate, secondsToMs } from './convert.js';
import { RATE, SIZE, bool, int, text } from './define.js';

const rate = (example: string) => ({ pattern: RATE, message: `must be N/SECONDS, for example ${example}` });

/** HTTP hardening (body sizes, timeouts, CORS, proxies) and the failed-authentication throttles. */
export const securitySettings = {
  // Unset, each route's limit is sized for a send to MAX_RECIPIENTS recipients
  // (src/config/body-limits.ts says how); a body over it is refused unread.
  BODY_LIMIT: text({
    pattern: SIZE,
    message: 'must be a size such as 2mb or 512kb',
    emptyIsUnset: true,
    defaultText:
      'unset: 64 KB + 128 bytes per recipient of `MAX_RECIPIENTS` (1.3 MB for 10,000; e-mail 1.3 MB more)',
    example: '2mb',
    doc: 'largest request body on the JSON send and preview endpoints, every channel (other routes: 16 KB; templates 1.3 MB); over it, 413 before the body is read',
  }),
  XML_BODY_LIMIT: text({
    pattern: SIZE,
    message: 'must be a size such as 1mb or 256kb',
    emptyIsUnset: true,
    defaultText: 'unset: 16 KB + 32 bytes per recipient of `MAX_RECIPIENTS` (336 KB for 10,000)',
    example: '512kb',
    doc: 'largest body on the XML endpoint; over it, 413 before the body is read',
  }),
  RATE_LIMIT_BODY_KB: int({
    path: 'rateLimitBodyBytes',
    to: kbToBytes,
    min: 1,
    max: 1_048_576,
    default: 4,
    doc: "a request counts against its key's rate limit once per started this many KB of body, at most the whole limit (a 400 KB send counts as 100 requests), so a key's big bodies cannot cost other tenants more than its small ones would",
  }),
  XML_ACCEPT_FORM_CONTENT_TYPES: bool({
    path: 'http.xmlAcceptFormContentTypes',
    default: false,
    doc: 'read `text/plain`, urlencoded and multipart bodies as XML on the XML endpoint (otherwise 415)',
  }),
  MAX_JSON_DEPTH: int({
    path: 'http.maxJsonDepth',
    min: 2,
    max: 1000,
    default: 32,
    doc: 'deepest nesting of objects and arrays in a JSON body; deeper is 400 `MALFORMED_BODY`',
  }),
  CORS_ORIGINS: text({
    pattern: /^(\*|https?:\/\/[^\s,/]+(,\s*https?:\/\/[^\s,/]+)*)$/,
    message: 'must be * or a comma-separated list of origins such as https://app.example.com',
    emptyIsUnset: true,
    defaultText: 'unset (CORS closed)',
    example: 'https://app.example.com,https://admin.example.com',
    doc: 'comma-separated browser origins allowed to call the API (`https://app.example.com`), or `*`',
  }),
  HTTP_MAX_HEADER_SIZE: int({
    path: 'http.maxHeaderSize',
    min: 1024,
    max: 1_048_576,
    default: 16_384,
    doc: 'bytes of request line and headers; more is 431',
  }),
  HTTP_HEADERS_TIMEOUT_MS: int({
    path: 'http.headersTimeoutMs',
    min: 1000,
    max: 600_000,
    default: 20_000,
    doc: 'time to receive the request headers; slower is 408 and the connection is closed',
  }),
  HTTP_REQUEST_TIMEOUT_MS: int({
    path: 'http.requestTimeoutMs',
    min: 1000,
    max: 3_600_000,
    default: 60_000,
    doc: 'time to receive the whole request, body included (at least `HTTP_HEADERS_TIMEOUT_MS`)',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int({
    path: 'http.keepAliveTimeoutMs',
    min: 0,
    max: 600_000,
    default: 5000,
    doc: "how long an idle kept-alive connection stays open; keep it above your load balancer's idle timeout only if the balancer reuses connections",
  }),
  HTTP_MAX_REQUESTS_PER_SOCKET: int({
    path: 'http.maxRequestsPerSocket',
    min: 0,
    max: 1_000_000,
    default: 1000,
    doc: 'requests served on one connection before it is closed (0 = no cap)',
  }),
  TRUST_PROXY: text({
    path: 'trustProxy',
    pattern: /^[^\s]+$/,
    message: 'must be a comma-separated list of addresses or CIDR ranges, or true/loopback',
    example: '10.0.0.0/8',
    compose: 'set by compose.yaml',
    doc: 'addresses/CIDRs of proxies whose `X-Forwarded-For` is believed (`true` = any)',
  }),
  AUTH_FAILURES_PER_ADDRESS: text({
    path: 'authThrottle.failuresPerAddress',
    to: parseRate,
    ...rate('50/60'),
    default: '50/60',
    doc: 'failed keys (unknown, revoked, expired, ambiguous) per client address in a window (N/SECONDS); then 429 for failed keys for the rest of the window (a valid key is never refused for its address)',
  }),
  AUTH_FAILURES_PER_ADDRESS_AND_KEY: text({
    path: 'authThrottle.failuresPerAddressAndKey',
    to: parseRate,
    ...rate('10/60'),
    default: '10/60',
    doc: 'failed authentications with one presented key from one client address in a window (N/SECONDS); then that key is refused from memory with 429',
  }),
  AUTH_PASSWORD_FAILURES_PER_KEY: text({
    path: 'authThrottle.passwordFailuresPerKey',
    to: parseRate,
    ...rate('10/300'),
    default: '10/300',
    doc: 'wrong `username`/`password` per API key in a window; then 429 before any hashing',
  }),
  AUTH_PASSWORD_FAILURES_PER_ACCOUNT: text({
    path: 'authThrottle.passwordFailuresPerAccount',
    to: parseRate,
    ...rate('30/300'),
    default: '30/300',
    doc: "the same across all the keys of one account and its sub-accounts' keys",
  }),
  PASSWORD_CHECK_CONCURRENCY: int({
    path: 'authThrottle.passwordCheckConcurrency',
    min: 1,
    max: 64,
    default: 2,
    doc: 'password hashes verified at once per process, one per account; more wait in a queue that takes the accounts in turn',
  }),
  PASSWORD_CHECK_QUEUE_PER_ACCOUNT: int({
    path: 'authThrottle.passwordCheckQueuePerAccount',
    min: 1,
    max: 1000,
    default: 4,
    doc: "password checks of one account running or waiting per process; one more is 429 with `Retry-After: 1` (one account's flood waits behind itself, never in front of another's check)",
  }),
  PASSWORD_CACHE_SECONDS: int({
    path: 'authThrottle.passwordCacheMs',
    to: secondsToMs,
    min: 0,
    max: 86_400,
    default: 60,
    doc: 'how long a verified account + username + password is remembered (0 = never); a password change or a suspension voids it',
  }),
  THROTTLE_REFUSAL_DELAY_MS: int({
    path: 'authThrottle.refusalDelayMs',
    min: 0,
    max: 10_000,
    default: 500,
    doc: 'how long a 429 of a throttle (rate limit, failed authentications) is held before it is sent (0 = at once)',
  }),
  SERVER_SECRET: text({
    pattern: /^\S{32,512}$/,
    message:
      'must be 32 to 512 characters without spaces (for example the output of `openssl rand -base64 48`)',
    emptyIsUnset: true,
    requiredIf: (env) => !['development', 'test'].includes(String(env.APP_ENV ?? 'development')),
    defaultText: 'a public dev value',
    example: 'CHANGE-ME-openssl-rand-base64-48',
    doc: 'key of the keyed digests the service stores (Idempotency-Key fingerprints, recipient hashes of the callback outbox), the same in every process; required unless `APP_ENV` is `development` or `test` (there a fixed, public value stands in); see Security before changing it',
  }),
  REQUEST_LOG_REFUSAL_WINDOW_SECONDS: int({
    path: 'requestLogRefusalWindowSeconds',
    min: 1,
    max: 3600,
    default: 10,
    doc: 'the 429s of one key in this window are one request-log row with a count',
  }),
};
