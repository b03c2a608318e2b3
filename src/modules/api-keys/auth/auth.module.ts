import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { CredentialsModule } from './credentials.module.js';
import { ApiKeysModule } from '../api-keys.module.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { IpAllowGuard } from './ip-allow.guard.js';
import { KeyRateLimitGuard } from './rate-limit.guard.js';
import { rateLimitOptions } from './rate-limit.js';
import { BodyGuard } from '../../../platform/http/body.guard.js';

/**
 * The guard chain of every route (ARCHITECTURE.md): api key → ip → rate limit → body. Global guards run
 * in the order they are registered, so the order of these providers is the order of the checks:
 * an address outside the allow list is refused before it can use up the key's rate limit.
 */
@Module({
  imports: [
    ApiKeysModule,
    AccountsModule,
    CredentialsModule,
    ThrottlerModule.forRootAsync({ inject: [APP_CONFIG], useFactory: (c: AppConfig) => rateLimitOptions(c) }),
  ],
  providers: [
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: IpAllowGuard },
    { provide: APP_GUARD, useClass: KeyRateLimitGuard },
    // Last: the body is read only for a request every check above has let through.
    { provide: APP_GUARD, useClass: BodyGuard },
  ],
})
export class AuthModule {}
