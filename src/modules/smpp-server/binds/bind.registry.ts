import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { REDIS } from '../../../platform/redis/redis.module.js';
import type { BindType } from '../bound-sessions.registry.js';

/** A bind as every process sees it (`smpp binds list`). */
export interface BindEntry {
  session: string;
  credentialId: number;
  systemId: string;
  type: BindType;
  address: string;
  since: string;
  /** host:pid of the API process that holds it. */
  process: string;
}

/** A process that stops refreshing its entries (killed) holds its binds this long at most. */
export const BIND_ENTRY_TTL_MS = 10_000;
/** How often a process refreshes its entries and looks for kicks. */
export const BIND_TICK_MS = 1000;
/** A kick applies to the binds made before it, for this long. */
const KICK_TTL_MS = 60_000;

/**
 * Takes a bind slot of a credential when it has fewer live entries than `max`: entries are
 * `<expiresAtMs>|<json>`, one field per session; expired ones (a process that died) are dropped
 * on the way. Atomic, so binds racing on several processes never pass the cap together.
 */
const TAKE = `
local all = redis.call('HGETALL', KEYS[1])
local now = tonumber(ARGV[1])
local live = 0
for i = 1, #all, 2 do
  local exp = tonumber(string.match(all[i + 1], '^(%d+)'))
  if exp == nil or exp < now then redis.call('HDEL', KEYS[1], all[i]) else live = live + 1 end
end
if live >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * The binds of every API process, in Redis: a hash per credential, one field per session,
 * each with an expiry its process pushes forward every second, so the count across processes
 * is exact while they live and a killed process's binds lapse within BIND_ENTRY_TTL_MS. Kicks
 * (`smpp binds kick`, a revoke) are a key per credential that every process looks for.
 */
@Injectable()
export class BindRegistry {
  readonly processName = `${hostname()}:${process.pid}`;
  private readonly prefix: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    this.prefix = `${config.queuePrefix}:smpp`;
  }

  /**
   * The app's connection queues nothing while it is not connected; a CLI command runs right
   * after it is opened, so it waits for it here (at most a few seconds).
   */
  private async ready(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('Redis is not reachable')), 5000);
      this.redis.once('ready', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private bindsKey(credentialId: number): string {
    return `${this.prefix}:binds:${credentialId}`;
  }

  private kickKey(credentialId: number): string {
    return `${this.prefix}:kick:${credentialId}`;
  }

  private value(entry: BindEntry, now: number): string {
    return `${now + BIND_ENTRY_TTL_MS}|${JSON.stringify(entry)}`;
  }

  /** Whether the bind fits under the credential's cap (and is now counted). */
  async take(entry: BindEntry, max: number): Promise<boolean> {
    const now = Date.now();
    const ok = await this.redis.eval(
      TAKE,
      1,
      this.bindsKey(entry.credentialId),
      now,
      entry.session,
      this.value(entry, now),
      max,
      BIND_ENTRY_TTL_MS * 6,
    );
    return ok === 1;
  }

  async release(credentialId: number, session: string): Promise<void> {
    await this.redis.hdel(this.bindsKey(credentialId), session);
  }

  /**
   * Pushes this process's entries forward and answers, per credential, the time of a kick
   * asked for it (epoch ms), if any.
   */
  async refresh(entries: BindEntry[]): Promise<Map<number, number>> {
    const kicks = new Map<number, number>();
    if (!entries.length) return kicks;
    const now = Date.now();
    const credentials = [...new Set(entries.map((e) => e.credentialId))];
    const multi = this.redis.multi();
    for (const e of entries) {
      multi.hset(this.bindsKey(e.credentialId), e.session, this.value(e, now));
      multi.pexpire(this.bindsKey(e.credentialId), BIND_ENTRY_TTL_MS * 6);
    }
    multi.mget(...credentials.map((c) => this.kickKey(c)));
    const results = (await multi.exec()) ?? [];
    const at = (results[results.length - 1]?.[1] ?? []) as Array<string | null>;
    credentials.forEach((c, i) => {
      if (at[i]) kicks.set(c, Number(at[i]));
    });
    return kicks;
  }

  /** Every live bind of every process, of one credential when given. */
  async list(credentialId?: number): Promise<BindEntry[]> {
    await this.ready();
    const keys =
      credentialId !== undefined ? [this.bindsKey(credentialId)] : await this.scan(`${this.prefix}:binds:*`);
    const now = Date.now();
    const found: BindEntry[] = [];
    for (const key of keys) {
      const all = await this.redis.hgetall(key);
      for (const value of Object.values(all)) {
        const bar = value.indexOf('|');
        if (Number(value.slice(0, bar)) < now) continue;
        found.push(JSON.parse(value.slice(bar + 1)) as BindEntry);
      }
    }
    return found.sort((a, b) => a.since.localeCompare(b.since));
  }

  /** Asks every process to unbind the credential's binds made until now. */
  async kick(credentialId: number): Promise<void> {
    await this.ready();
    await this.redis.set(this.kickKey(credentialId), String(Date.now()), 'PX', KICK_TTL_MS);
  }

  private async scan(pattern: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  }
}
