import { Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';

export const REDIS = Symbol('REDIS');

const logger = new Logger('Redis');

/** The app's own Redis connection (health, cache invalidation, rate limits); Bull keeps its own. */
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      // Fail fast while Redis is down instead of queueing commands in memory: callers decide what to do.
      useFactory: (c: AppConfig) => {
        const redis = new Redis(c.redisUrl, {
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2000,
          lazyConnect: false,
        });
        // ioredis reconnects by itself; say so once per outage rather than once per retry.
        let down = false;
        redis.on('error', (err: Error) => {
          if (!down) logger.warn(`Redis unavailable (${err.message}); reconnecting`);
          down = true;
        });
        redis.on('ready', () => {
          if (down) logger.log('Redis is back');
          down = false;
        });
        return redis;
      },
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
  }
}
