import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { CacheStatsModule } from '../metrics/cache-stats.service.js';
import { ApiKeyStore } from './api-key.store.js';
import { ApiKeyCache } from './api-key.cache.js';
import { ApiKeysService } from './api-keys.service.js';
import { LastUsedTracker } from './last-used.tracker.js';

@Module({
  imports: [CacheStatsModule, AccountsModule],
  providers: [ApiKeyStore, ApiKeysService, ApiKeyCache, LastUsedTracker],
  exports: [ApiKeysService, ApiKeyCache, LastUsedTracker],
})
export class ApiKeysModule {}
