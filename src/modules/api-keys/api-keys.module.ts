import { Module } from '@nestjs/common';
import { ApiKeyCache } from './api-key-cache.js';
import { ApiKeysService } from './api-keys.service.js';
import { LastUsedTracker } from './last-used.tracker.js';

@Module({
  providers: [ApiKeysService, ApiKeyCache, LastUsedTracker],
  exports: [ApiKeysService, ApiKeyCache, LastUsedTracker],
})
export class ApiKeysModule {}
