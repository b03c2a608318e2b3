import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { MicroBatcher, type ItemOutcome } from '../../../platform/batching/micro-batcher.js';
import { REDIS } from '../../../platform/redis/redis.module.js';

/**
 * A token bucket: `rate` tokens a second up to `burst`; takes up to `n` whole tokens, as many
 * as there are, and answers how many it took. Time is
 * the caller's clock in ms (processes of one deployment share a clock closely enough for a
 * bucket that refills every second).
 */
const TAKE = `
local b = redis.call('HMGET', KEYS[1], 't', 'ts')
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then tokens = burst; ts = now end
if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate / 1000) end
local took = math.max(0, math.min(n, math.floor(tokens)))
tokens = tokens - took
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(math.max(now, ts)))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return took`;

interface Take {
  credentialId: number;
  tps: number;
}

interface LocalBucket {
  tokens: number;
  ts: number;
}

/**
 * The submit rate of each credential across processes: a token bucket in Redis whose burst is
 * at least the read window, so a client that pipelines a full window within its rate is never
 * throttled. While Redis does not answer, each process keeps a bucket of its own at the full
 * rate: throttling weakens during an outage, submits do not fail for it. The submits read in
 * one tick take their tokens together, one script call per credential rather than one per PDU.
 */
@Injectable()
export class SubmitBucket {
  private readonly prefix: string;
  private readonly window: number;
  private readonly local = new Map<number, LocalBucket>();
  private readonly takes = new MicroBatcher<Take, boolean>({
    overlap: true,
    flush: (takes) => this.takeAll(takes),
  });

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

  take(credentialId: number, tps: number): Promise<boolean> {
    return this.takes.push({ credentialId, tps });
  }

  /** The first `took` of each credential's takes are granted, in the order they were read. */
  private async takeAll(takes: Take[]): Promise<ItemOutcome<boolean>[]> {
    const byCredential = new Map<number, number[]>();
    takes.forEach((t, i) => {
      const at = byCredential.get(t.credentialId);
      if (at) at.push(i);
      else byCredential.set(t.credentialId, [i]);
    });
    const granted = new Array<boolean>(takes.length).fill(false);
    await Promise.all(
      [...byCredential.values()].map(async (at) => {
        const { credentialId, tps } = takes[at[0]!]!;
        const took = await this.takeSome(credentialId, tps, at.length);
        for (let j = 0; j < took; j++) granted[at[j]!] = true;
      }),
    );
    return granted.map((value) => ({ status: 'fulfilled', value }));
  }

  private async takeSome(credentialId: number, tps: number, n: number): Promise<number> {
    const burst = this.burstOf(tps);
    const now = Date.now();
    try {
      return Number(await this.redis.eval(TAKE, 1, `${this.prefix}:${credentialId}`, tps, burst, now, n));
    } catch {
      let took = 0;
      while (took < n && this.takeLocal(credentialId, tps, burst, now)) took++;
      return took;
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
