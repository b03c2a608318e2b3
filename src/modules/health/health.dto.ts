import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Response shapes of the health probes, for the OpenAPI document only. */

export class HealthBasicResponse {
  @ApiProperty({ example: 'ok' }) status: string;
  @ApiProperty({ example: 'bulk-messaging' }) service: string;
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ example: '1.0.0' }) version: string;
  @ApiProperty({ example: '2025-11-26T19:14:30.578Z', description: 'ISO 8601 with milliseconds' })
  timestamp: string;
  @ApiProperty({ example: '3d 4h 12m 5s', description: 'human-readable duration' }) uptime: string;
}

export class UptimeDto {
  @ApiProperty({ example: '3d 4h 12m 5s' }) human_readable: string;
  @ApiProperty({ example: 274325, type: 'integer' }) seconds: number;
}

class CheckBase {
  @ApiProperty({ enum: ['healthy', 'unhealthy'], example: 'healthy' }) status: string;
  @ApiProperty({
    description: 'what was found; names the cause when unhealthy',
    example: 'main database is reachable',
  })
  message: string;
}

export class CacheCheckDto extends CheckBase {
  @ApiProperty({
    example: 0.97,
    minimum: 0,
    maximum: 1,
    description: 'API-key cache hits / lookups in this process; 1 before the first lookup',
  })
  hit_ratio: number;
}

export class DatabaseCheckDto extends CheckBase {
  @ApiProperty({
    example: 2,
    type: 'integer',
    description: 'time to answer SELECT 1 (or to give up, at most 800 ms)',
  })
  response_time_ms: number;
}

export class MainDatabaseCheckDto extends DatabaseCheckDto {
  @ApiProperty({
    example: 'db-node-2:3306',
    description:
      'the server that answered, as it names itself (host:port): behind a proxy or on a Galera cluster, the node in use',
  })
  node: string;
}

export class QueueCheckDto extends CheckBase {
  @ApiProperty({
    example: 12,
    type: 'integer',
    nullable: true,
    description:
      'jobs waiting, active or delayed over sms, email, chat and callbacks; null when Redis does not answer',
  })
  queue_size: number | null;
  @ApiProperty({
    example: '10.0.0.12:6379',
    type: 'string',
    nullable: true,
    description:
      "the Redis server the queues' connection talks to (with Sentinel, the primary in use); null when Redis does not answer",
  })
  redis_primary: string | null;
}

export class ProviderCheckDto extends CheckBase {
  @ApiProperty({ example: 0, type: 'integer' }) response_time_ms: number;
}

export class ExternalServicesDto extends CheckBase {
  @ApiProperty({ type: ProviderCheckDto, description: 'the e-mail and chat providers' })
  client_server: ProviderCheckDto;
  @ApiProperty({ type: ProviderCheckDto, description: 'the SMS provider (SMPP SMSC or sandbox)' })
  sms_server: ProviderCheckDto;
}

export class HealthChecksDto {
  @ApiProperty({ type: CacheCheckDto }) cache: CacheCheckDto;
  @ApiProperty({ type: MainDatabaseCheckDto }) database: MainDatabaseCheckDto;
  @ApiProperty({ type: DatabaseCheckDto }) log_database: DatabaseCheckDto;
  @ApiProperty({ type: DatabaseCheckDto }) notification_database: DatabaseCheckDto;
  @ApiProperty({ type: QueueCheckDto }) message_queue: QueueCheckDto;
  @ApiProperty({ type: ExternalServicesDto }) external_services: ExternalServicesDto;
}

export class HealthDetailedResponse {
  @ApiProperty({ enum: ['healthy', 'unhealthy'], example: 'healthy' }) status: string;
  @ApiProperty({ example: 'bulk-messaging' }) service: string;
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ example: '1.0.0' }) version: string;
  @ApiProperty({ example: '2025-11-26T19:14:30.578Z' }) timestamp: string;
  @ApiProperty({ type: UptimeDto }) uptime: UptimeDto;
  @ApiProperty({ type: HealthChecksDto }) checks: HealthChecksDto;
}

export class FailedDependencyDto {
  @ApiProperty({ example: 'redis' }) name: string;
  @ApiProperty({ example: 'Redis is unreachable: connection is reconnecting' }) message: string;
}

export class HealthReadyResponse {
  @ApiProperty({ enum: ['ready', 'not_ready'], example: 'ready' }) status: string;
  @ApiProperty({ example: true, description: 'every database and Redis answered' })
  dependencies_ready: boolean;
  @ApiProperty({ example: 'bulk-messaging' }) service: string;
  @ApiProperty({ example: '2025-11-26T19:14:30.578Z' }) timestamp: string;
  @ApiPropertyOptional({ example: true, description: 'present while the process is shutting down' })
  shutting_down?: boolean;
  @ApiPropertyOptional({
    type: [FailedDependencyDto],
    description: 'present when a dependency did not answer',
  })
  failed?: FailedDependencyDto[];
}

export class HealthLiveResponse {
  @ApiProperty({ example: 'alive' }) status: string;
  @ApiProperty({ example: 'bulk-messaging' }) service: string;
  @ApiProperty({ example: '2025-11-26T19:14:30.578Z' }) timestamp: string;
  @ApiProperty({ example: 3.25, description: 'CPU time over the last 5 s sampling interval, % of one core' })
  cpu_usage_percent: number;
  @ApiProperty({ example: 142.6 }) memory_usage_mb: number;
  @ApiProperty({ example: '4127' }) pid: string;
}

const healthy = (message: string, extra: object = {}) => ({ status: 'healthy', message, ...extra });

/** A 503 of /health/detailed: the failed member names its cause, the others stay healthy. */
export const HEALTH_DETAILED_UNHEALTHY_EXAMPLE = {
  status: 'unhealthy',
  service: 'bulk-messaging',
  environment: 'production',
  version: '1.0.0',
  timestamp: '2025-11-26T19:14:30.578Z',
  uptime: { human_readable: '3d 4h 12m 5s', seconds: 274325 },
  checks: {
    cache: healthy('API-key cache in use', { hit_ratio: 0.97 }),
    database: healthy('main database is reachable', { response_time_ms: 2, node: 'db-node-2:3306' }),
    log_database: healthy('log database is reachable', { response_time_ms: 2 }),
    notification_database: healthy('notification database is reachable', { response_time_ms: 2 }),
    message_queue: healthy('Redis answered', { queue_size: 12, redis_primary: '10.0.0.12:6379' }),
    external_services: {
      status: 'unhealthy',
      message: 'client_server is unhealthy',
      client_server: {
        status: 'unhealthy',
        message:
          'e-mail (smtp): SMTP server mail.example.com:587 unusable: SMTP_TLS_CERTIFICATE, fix the configuration: self-signed certificate; chat (http): chat API answered HTTP 200',
        response_time_ms: 41,
      },
      sms_server: healthy('SMSC smsc.example.com:2775 bound', { response_time_ms: 3 }),
    },
  },
};

export const HEALTH_NOT_READY_EXAMPLE = {
  status: 'not_ready',
  dependencies_ready: false,
  service: 'bulk-messaging',
  timestamp: '2025-11-26T19:14:30.578Z',
  failed: [{ name: 'redis', message: 'Redis is unreachable: connection is reconnecting' }],
};
