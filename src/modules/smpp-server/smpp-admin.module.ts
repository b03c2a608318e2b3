import { Module } from '@nestjs/common';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { AccountsModule } from '../accounts/accounts.module.js';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { BindRegistry } from './binds/bind.registry.js';
import { SmppCredentialStore } from './credentials/smpp-credential.store.js';
import { SmppCredentialsService } from './credentials/smpp-credentials.service.js';

/**
 * What the `smpp` commands drive without a listener: credentials in MySQL, and the bind
 * registry in Redis (binds are listed and kicked there, across every API process).
 */
@Module({
  imports: [AccountsModule, ApiKeysModule, RedisModule],
  providers: [SmppCredentialStore, SmppCredentialsService, BindRegistry],
  exports: [SmppCredentialStore, SmppCredentialsService, BindRegistry],
})
export class SmppAdminModule {}
