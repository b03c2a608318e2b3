import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { CacheStats } from '../metrics/cache-stats.service.js';

/**
 * `cache`: the API-key lookup cache. It lives in this process's memory (a short TTL bounds its
 * staleness; it needs no Redis), so there is nothing remote to probe: it reports its use.
 * `hit_ratio` comes from CacheStats, counted since the process started (1 before any lookup).
 */
@Injectable()
export class CacheIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly stats: CacheStats,
  ) {}

  check() {
    const session = this.health.check('cache');
    const { hits, misses } = this.stats.snapshot();
    const hitRatio = Math.round(this.stats.ratio() * 10_000) / 10_000;
    return session.up({
      message: `API-key lookup cache in memory: ${hits + misses} lookup(s), ${hits} hit(s) since start`,
      hit_ratio: hitRatio,
    });
  }
}
