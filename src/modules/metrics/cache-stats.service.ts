import { Injectable, Module } from '@nestjs/common';

/**
 * Hit/miss counters of the API-key lookup cache, for `checks.cache.hit_ratio` of
 * /health/detailed and the `bulk_api_key_cache_lookups_total` metric. The cache calls
 * `hit()` or `miss()` once per lookup; counts are per process and since its start.
 *
 * `ratio()` is 1 while there has been no lookup yet: nothing has missed, and a fresh process
 * should not look like a cold or broken cache to an alert on a low ratio.
 */
@Injectable()
export class CacheStats {
  private hits = 0;
  private misses = 0;

  hit(): void {
    this.hits++;
  }

  miss(): void {
    this.misses++;
  }

  /** hits / (hits + misses), between 0 and 1; 1 before the first lookup. */
  ratio(): number {
    const total = this.hits + this.misses;
    return total === 0 ? 1 : this.hits / total;
  }

  snapshot(): { hits: number; misses: number } {
    return { hits: this.hits, misses: this.misses };
  }
}

/** Imported by the API-key module (which counts) and by health and metrics (which report). */
@Module({ providers: [CacheStats], exports: [CacheStats] })
export class CacheStatsModule {}
