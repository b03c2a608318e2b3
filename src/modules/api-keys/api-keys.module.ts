import { Module } from '@nestjs/common';
import { CacheStatsModule } from '../metrics/cache-stats.js';
import { ApiKeyCache } from './api-key-cache.js';
import { ApiKeysService } from './api-keys.service.js';
import { LastUsedTracker } from './last-used.tracker.js';

@Module({
  imports: [CacheStatsModule],
  providers: [ApiKeysService, ApiKeyCache, LastUsedTracker],
  exports: [ApiKeysService, ApiKeyCache, LastUsedTracker],
})
export class ApiKeysModule {}
