import { Module } from '@nestjs/common';
import { AuthThrottle } from './auth-throttle.service.js';
import { RedisModule } from '../../../platform/redis/redis.module.js';
import { MetricsModule } from '../../metrics/metrics.module.js';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { AuthMetrics } from './auth.metrics.js';
import { CredentialCheck } from './credential-check.service.js';

/**
 * Checking what a caller presents (keys, passwords) against the throttles counted in Redis. Only
 * the HTTP API authenticates, so only it imports this; the CLI does without Redis.
 */
@Module({
  imports: [AccountsModule, RedisModule, MetricsModule],
  providers: [AuthMetrics, AuthThrottle, CredentialCheck],
  exports: [AuthThrottle, CredentialCheck],
})
export class CredentialsModule {}
