import { Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { haEvents } from '../ha/ha-events.js';
import { connectedAddress, redisOptions } from './redis-options.js';

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
        const redis = new Redis(
          redisOptions(c.redis, {
            maxRetriesPerRequest: 1,
            enableOfflineQueue: false,
            connectTimeout: 2000,
            lazyConnect: false,
          }),
        );
        // ioredis reconnects by itself; say so once per outage rather than once per retry.
        let down = false;
        redis.on('error', (err: Error) => {
          if (!down) logger.warn(`Redis unavailable (${err.message}); reconnecting`);
          down = true;
        });
        // A connection that comes back to another server followed a failover (Sentinel promoted a replica).
        let primary: string | undefined;
        redis.on('ready', () => {
          const now = connectedAddress(redis);
          if (primary && now && now !== primary) {
            haEvents.redisFailovers++;
            logger.warn(`Redis primary is now ${now} (was ${primary})`);
          } else if (down) logger.log('Redis is back');
          if (now) primary = now;
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
