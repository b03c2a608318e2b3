import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { REDIS } from '../../../platform/redis/redis.module.js';

/**
 * A token bucket: `rate` tokens a second up to `burst`; takes one when there is one. Time is
 * the caller's clock in ms (processes of one deployment share a clock closely enough for a
 * bucket that refills every second).
 */
const TAKE = `
local b = redis.call('HMGET', KEYS[1], 't', 'ts')
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then tokens = burst; ts = now end
if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate / 1000) end
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(math.max(now, ts)))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return ok`;

interface LocalBucket {
  tokens: number;
  ts: number;
}

/**
 * The submit rate of each credential across processes: a token bucket in Redis whose burst is
 * at least the read window, so a client that pipelines a full window within its rate is never
 * throttled. While Redis does not answer, each process keeps a bucket of its own at the full
 * rate: throttling weakens during an outage, submits do not fail for it.
 */
@Injectable()
export class SubmitBucket {
  private readonly prefix: string;
  private readonly window: number;
  private readonly local = new Map<number, LocalBucket>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    this.prefix = `${config.queuePrefix}:smpp:tps`;
    this.window = config.smppServer.window;
  }

  burstOf(tps: number): number {
    return Math.max(tps, this.window);
  }

  async take(credentialId: number, tps: number): Promise<boolean> {
    const burst = this.burstOf(tps);
    const now = Date.now();
    try {
      return (await this.redis.eval(TAKE, 1, `${this.prefix}:${credentialId}`, tps, burst, now)) === 1;
    } catch {
      return this.takeLocal(credentialId, tps, burst, now);
    }
  }

  private takeLocal(credentialId: number, tps: number, burst: number, now: number): boolean {
    const b = this.local.get(credentialId) ?? { tokens: burst, ts: now };
    b.tokens = Math.min(burst, b.tokens + (Math.max(0, now - b.ts) * tps) / 1000);
    b.ts = Math.max(now, b.ts);
    this.local.set(credentialId, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
