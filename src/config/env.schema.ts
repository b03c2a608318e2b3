import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === ''
    ? undefined
    : ['true', '1', 'yes'].includes(String(value).toLowerCase())
      ? true
      : ['false', '0', 'no'].includes(String(value).toLowerCase())
        ? false
        : value;
const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;

const MYSQL_URL = /^mysql:\/\/[^/\s]+\/[A-Za-z0-9_]+(\?.*)?$/;
const REDIS_URL = /^rediss?:\/\/[^\s]+$/;
const SENTINELS =
  /^\s*(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}\s*(?:,\s*(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}\s*)*$/;
export const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/** The environment as the service reads it. Defaults live in config.ts. */
export class EnvSchema {
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @Matches(MYSQL_URL, { message: 'must look like mysql://user:password@host:3306/database' })
  DATABASE_URL?: string;

  @IsOptional()
  @Matches(MYSQL_URL, { message: 'must look like mysql://user:password@host:3306/database' })
  LOG_DATABASE_URL?: string;

  @IsOptional()
  @Matches(MYSQL_URL, { message: 'must look like mysql://user:password@host:3306/database' })
  NOTIFICATION_DATABASE_URL?: string;

  // Reads that tolerate a short lag (search, export, request summaries): a replica or another node.
  @IsOptional()
  @Matches(MYSQL_URL, { message: 'must look like mysql://user:password@host:3306/database' })
  DATABASE_READ_URL?: string;

  @IsOptional()
  @Matches(REDIS_URL, { message: 'must look like redis://host:6379' })
  REDIS_URL?: string;

  // Redis through Sentinel (README "Running at scale"): the sentinels, the name they monitor, passwords.
  @IsOptional()
  @Matches(SENTINELS, { message: 'must look like host:26379,host:26379' })
  REDIS_SENTINELS?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be the name the sentinels monitor, such as mymaster' })
  REDIS_SENTINEL_NAME?: string;

  @IsOptional()
  @IsString()
  REDIS_SENTINEL_PASSWORD?: string;

  @IsOptional()
  @IsString()
  REDIS_PASSWORD?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,32}$/, { message: 'must be a short word such as production' })
  APP_ENV?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  RUN_WORKERS?: boolean;

  @IsOptional()
  @IsIn(['sandbox', 'smpp'])
  SMS_TRANSPORT?: string;

  @IsOptional()
  @IsIn(['sandbox', 'smtp'])
  EMAIL_TRANSPORT?: string;

  @IsOptional()
  @IsIn(['sandbox', 'http'])
  CHAT_TRANSPORT?: string;

  // With SMS_TRANSPORT=smpp, the default connector; the connectors table (CLI) may serve alone.
  @ValidateIf((o: EnvSchema) => o.SMPP_URL !== undefined)
  @Matches(/^smpps?:\/\/[^\s]+$/, {
    message: 'must look like smpp://system_id:password@host:2775',
  })
  SMPP_URL?: string;

  @ValidateIf((o: EnvSchema) => o.EMAIL_TRANSPORT === 'smtp' || o.SMTP_URL !== undefined)
  @Matches(/^smtps?:\/\/[^\s]+$/, {
    message: 'must look like smtp://user:password@host:587 (required when EMAIL_TRANSPORT=smtp)',
  })
  SMTP_URL?: string;

  // SMTP TLS (docs/operations/providers.md): required by default, so a relay that cannot do TLS is a visible error.
  @IsOptional()
  @IsIn(['required', 'opportunistic', 'off'])
  SMTP_TLS?: string;

  @IsOptional()
  @IsString()
  @Matches(/^\S+$/, { message: 'must be the path of a PEM file of CA certificates' })
  SMTP_TLS_CA?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  SMTP_TLS_REJECT_UNAUTHORIZED?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SMTP_POOL_IDLE_MS?: number;

  @IsOptional()
  @Matches(
    /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/,
    {
      message: 'must be a domain name such as mail.acme.example',
    },
  )
  EMAIL_MESSAGE_ID_DOMAIN?: string;

  @IsOptional()
  @Matches(
    /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/,
    {
      message: 'must be a fully qualified host name such as mailer.acme.example',
    },
  )
  SMTP_EHLO_NAME?: string;

  @ValidateIf((o: EnvSchema) => o.CHAT_TRANSPORT === 'http' || o.CHAT_API_URL !== undefined)
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL (required when CHAT_TRANSPORT=http)' })
  CHAT_API_URL?: string;

  @IsOptional()
  @IsString()
  CHAT_API_TOKEN?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  CALLBACK_ALLOW_PRIVATE_NETWORKS?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  MAX_RECIPIENTS?: number;

  // Test keys' traffic (README "Test keys"): quotas, its own queue, callbacks to failing targets.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  TEST_MAX_RECIPIENTS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  TEST_DAILY_MESSAGES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  TEST_CONCURRENCY?: number;

  @IsOptional()
  @Matches(/^[1-9]\d*\/[1-9]\d*$/, { message: 'must be N/SECONDS, for example 50/3600' })
  TEST_CALLBACK_FAILURES?: string;

  // Inbound auto-replies (README "Inbound and opt-out").
  @IsOptional()
  @Matches(DURATION, { message: 'must be a duration such as 24h, 30m or 45s' })
  AUTO_REPLY_REPEAT_AFTER?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[^\s]+$/, {
    message: 'must be a comma-separated list of addresses or CIDR ranges, or true/loopback',
  })
  TRUST_PROXY?: string;

  @IsOptional()
  @Matches(/^\d+(kb|mb)?$/i, { message: 'must be a size such as 2mb or 512kb' })
  BODY_LIMIT?: string;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_:-]{1,64}$/, { message: 'must be letters, digits, _ : or -' })
  QUEUE_PREFIX?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SANDBOX_DELIVERY_DELAY_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  WORKER_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  SMS_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  EMAIL_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  CHAT_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  CALLBACK_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100_000)
  SMPP_TPS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  SMPP_WINDOW?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  SMPP_RESPONSE_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SMPP_LATE_RESPONSE_WAIT_MS?: number;

  @IsOptional()
  @IsIn(['auto', 'hex', 'decimal', 'string'])
  SMPP_RECEIPT_ID_FORMAT?: 'auto' | 'hex' | 'decimal' | 'string';

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(604_800_000)
  SMPP_UNMATCHED_RECEIPT_TTL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  QUEUE_LOCK_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  DISPATCH_SLICE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  SWEEP_INTERVAL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SWEEP_MIN_AGE_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  SWEEP_STRANDED_AFTER_MS?: number;

  @IsOptional()
  @Matches(DURATION, { message: 'must be a duration such as 72h, 30m, 45s or 500ms (at least 1s)' })
  RECEIPT_WAIT?: string;

  /** Seconds a message may wait to be handed to a provider, from the later of send_at and acceptance. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(604_800)
  DEFAULT_VALIDITY_PERIOD?: number;

  /** How often each worker asks MySQL for scheduled messages that are due. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60_000)
  SCHEDULE_POLL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  CALLBACK_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(256)
  CALLBACK_TARGET_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  CALLBACK_CIRCUIT_OPEN_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  CALLBACK_BACKOFF_BASE_MS?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  CALLBACK_HTTPS_ONLY?: boolean;

  /** Where the API is reached from outside; set, every e-mail carries one-click unsubscribe headers. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/, {
    message: 'must be an http(s) URL without query or fragment, such as https://api.acme.example',
  })
  PUBLIC_BASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE?: number;

  // Message exports (modules/messages/search/message-export.service.ts).
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(50)
  EXPORTS_PER_ACCOUNT?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  EXPORT_STALL_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  TEMPLATES_PER_ACCOUNT?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  SHUTDOWN_GRACE_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  STARTUP_WAIT_SECONDS?: number;

  @IsOptional()
  @Matches(/^\d+\/\d+$/, { message: 'must be N/SECONDS, for example 100/1' })
  RATE_LIMIT_DEFAULT?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36_500)
  REQUEST_LOG_RETENTION_DAYS?: number;

  // Message retention and archives (modules/retention, README "Retention and erasure").
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36_500)
  MESSAGE_RETENTION_DAYS?: number;

  @IsOptional()
  @IsString()
  @Matches(/^\S/, { message: 'must be a directory path' })
  ARCHIVE_DIR?: string;

  @IsOptional()
  @Matches(/^(off|\d+(ms|s|m|h|d))$/, {
    message: 'must be off or a duration such as 24h or 30m (at least 1m)',
  })
  RETENTION_SCHEDULE?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(50_000)
  RETENTION_BATCH?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  RETENTION_PAUSE_MS?: number;

  // Authentication throttles (modules/api-keys/auth/auth-throttle.ts, README "Security").
  @IsOptional()
  @Matches(/^[1-9]\d*\/[1-9]\d*$/, { message: 'must be N/SECONDS, for example 10/300' })
  AUTH_PASSWORD_FAILURES_PER_KEY?: string;

  @IsOptional()
  @Matches(/^[1-9]\d*\/[1-9]\d*$/, { message: 'must be N/SECONDS, for example 30/300' })
  AUTH_PASSWORD_FAILURES_PER_ACCOUNT?: string;

  @IsOptional()
  @Matches(/^[1-9]\d*\/[1-9]\d*$/, { message: 'must be N/SECONDS, for example 50/60' })
  AUTH_FAILURES_PER_ADDRESS?: string;

  @IsOptional()
  @Matches(/^[1-9]\d*\/[1-9]\d*$/, { message: 'must be N/SECONDS, for example 10/60' })
  AUTH_FAILURES_PER_ADDRESS_AND_KEY?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  PASSWORD_CHECK_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(86_400)
  PASSWORD_CACHE_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000)
  THROTTLE_REFUSAL_DELAY_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  REQUEST_LOG_REFUSAL_WINDOW_SECONDS?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  LOG_PRETTY?: boolean;

  // Empty means unset, so compose files can pass ${METRICS_TOKEN:-} through.
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @Matches(/^[\x21-\x7e]{16,256}$/, { message: 'must be 16-256 printable characters without spaces' })
  METRICS_TOKEN?: string;

  // The queue dashboard (/admin/queues) exists only when this is set. Empty means unset.
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @Matches(/^[\x21-\x7e]{16,256}$/, { message: 'must be 16-256 printable characters without spaces' })
  ADMIN_TOKEN?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  // HTTP hardening (platform/http/security.ts, README "Security").
  // Comma-separated origins (scheme://host[:port]) allowed to call the API from a browser, or *.
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @Matches(/^(\*|https?:\/\/[^\s,/]+(,\s*https?:\/\/[^\s,/]+)*)$/, {
    message: 'must be * or a comma-separated list of origins such as https://app.example.com',
  })
  CORS_ORIGINS?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(1000)
  MAX_JSON_DEPTH?: number;

  // The form content types a browser sends cross-site without a preflight; refused unless true.
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  XML_ACCEPT_FORM_CONTENT_TYPES?: boolean;

  @IsOptional()
  @Matches(/^\d+(kb|mb)?$/i, { message: 'must be a size such as 1mb or 256kb' })
  XML_BODY_LIMIT?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1_048_576)
  HTTP_MAX_HEADER_SIZE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  HTTP_HEADERS_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  HTTP_REQUEST_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  HTTP_MAX_REQUESTS_PER_SOCKET?: number;
}
