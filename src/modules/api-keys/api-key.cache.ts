import { Injectable } from '@nestjs/common';
import { CacheStats } from '../metrics/cache-stats.service.js';
import type { ResolvedKey } from './resolved-key.js';
import { CREDENTIAL_CACHE_TTL_MS } from '../accounts/password-policy.js';

/**
 * How long a looked-up key (or the fact that a key is unknown) is believed without asking MySQL.
 *
 * Why a 1 s TTL and not pub/sub invalidation: a key can be revoked, rotated or changed, and an
 * account suspended, from a process that shares nothing with the API but MySQL (the admin CLI
 * has no Redis), or by hand in the database. Only a short TTL bounds how long every process
 * can go on accepting such a key, whoever changed it; a Redis broadcast would cover only the
 * changes made by processes that publish. At one second the cache still takes all but one
 * lookup per key per second per process off MySQL, which is what matters under load. Changes
 * made in this process (ApiKeysService.onKeyChanged) also drop the entry at once.
 */
export const KEY_CACHE_TTL_MS = CREDENTIAL_CACHE_TTL_MS;
/** Bounds memory: a flood of random keys evicts the oldest entries instead of growing the maps. */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  value: ResolvedKey;
  until: number;
}

/**
 * The in-process API-key lookup cache, keyed by the key's SHA-256 (never the key itself).
 * Found keys and unknown keys are kept apart, each map bounded; concurrent misses for one key
 * share one query. Revocation, expiry and account status are judged by the caller on every
 * request from the cached row, so an expiry passes at its exact time, not at the next reload.
 */
@Injectable()
export class ApiKeyCache {
  private readonly found = new Map<string, Entry>();
  private readonly unknown = new Map<string, number>();
  private readonly loading = new Map<string, Promise<ResolvedKey | null>>();
  /** Bumped by every invalidation, so a load that raced with one does not store what it read. */
  private generation = 0;

  constructor(private readonly stats?: CacheStats) {}

  /**
   * What the cache believes of the key now, without a promise: the key, null when it is known
   * to be unknown, undefined when it must be read (get).
   */
  peek(hash: Buffer, counted = true): ResolvedKey | null | undefined {
    return this.fresh(hash.toString('base64'), Date.now(), counted);
  }

  async get(hash: Buffer, load: () => Promise<ResolvedKey | null>): Promise<ResolvedKey | null> {
    const id = hash.toString('base64');
    const now = Date.now();
    const known = this.fresh(id, now);
    if (known !== undefined) return known;
    const pending = this.loading.get(id);
    if (pending) {
      // Joining a query already in flight costs MySQL nothing.
      this.stats?.hit();
      return pending;
    }
    this.stats?.miss();
    const generation = this.generation;
    // The TTL counts from before the read: a change committed after this moment is seen within it.
    const until = now + KEY_CACHE_TTL_MS;
    const promise = load().then((value) => {
      if (generation === this.generation) this.store(id, value, until);
      return value;
    });
    this.loading.set(id, promise);
    try {
      return await promise;
    } finally {
      this.loading.delete(id);
    }
  }

  /** Drops every entry of one key (whatever secret it was found by: rotation changes the hash). */
  invalidateKey(keyId: string): void {
    this.generation++;
    for (const [hash, entry] of this.found) if (entry.value.key.id === keyId) this.found.delete(hash);
    // A rotated key's new secret may have been tried (and remembered as unknown) before the rotation.
    this.unknown.clear();
  }

  clear(): void {
    this.generation++;
    this.found.clear();
    this.unknown.clear();
  }

  get size(): { found: number; unknown: number } {
    return { found: this.found.size, unknown: this.unknown.size };
  }

  /** A fresh entry's answer (counted as a hit); stale entries are dropped on the way. */
  private fresh(id: string, now: number, counted = true): ResolvedKey | null | undefined {
    const hit = this.found.get(id);
    if (hit) {
      if (hit.until > now) {
        if (counted) this.stats?.hit();
        return hit.value;
      }
      this.found.delete(id);
    }
    const unknownUntil = this.unknown.get(id);
    if (unknownUntil !== undefined) {
      if (unknownUntil > now) {
        if (counted) this.stats?.hit();
        return null;
      }
      this.unknown.delete(id);
    }
    return undefined;
  }

  private store(id: string, value: ResolvedKey | null, until: number): void {
    if (until <= Date.now()) return;
    if (value) {
      evictOldest(this.found);
      this.found.set(id, { value, until });
    } else {
      evictOldest(this.unknown);
      this.unknown.set(id, until);
    }
  }
}

/** Maps iterate in insertion order, so the first entry is the oldest. */
function evictOldest(map: Map<string, unknown>): void {
  if (map.size < KEY_CACHE_MAX_ENTRIES) return;
  const first = map.keys().next();
  if (!first.done) map.delete(first.value);
}
