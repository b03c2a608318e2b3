import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { Queue } from 'bull';
import { connectedAddress } from '../../platform/redis/redis-options.js';
import { EVERY_QUEUE } from './health.tokens.js';
import { PROBE_TIMEOUT_MS } from './dependency.indicators.js';
import { SingleFlight, errorText, timed } from './probes.js';

type Depth = { ok: true; size: number; ms: number } | { ok: false; error: string };

/**
 * `message_queue`: the Bull queues in Redis. `queue_size` is the jobs not yet done
 * (waiting + active + delayed) over sms, email, chat and callbacks. A dispatch job carries up
 * to 200 messages, so this counts jobs, not messages. `redis_primary` is the server the queues'
 * connection talks to: with Sentinel, the primary in use, which changes when a replica is promoted.
 */
@Injectable()
export class MessageQueueIndicator {
  private readonly flight = new SingleFlight<number>();

  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(EVERY_QUEUE) private readonly queues: Queue[],
  ) {}

  /** The counting commands are shared while pending, so a hung Redis is not sent more of them per probe. */
  private async depth(): Promise<Depth> {
    const queues = this.queues;
    const notReady = queues.find((q) => q.client.status !== 'ready');
    if (notReady)
      return { ok: false, error: `Redis connection of queue ${notReady.name} is ${notReady.client.status}` };
    let size = 0;
    try {
      const count = () =>
        this.flight.run(async () => {
          const counts = await Promise.all(queues.map((q) => q.getJobCounts()));
          return counts.reduce((n, c) => n + c.waiting + c.active + c.delayed, 0);
        });
      const ms = await timed(async () => (size = await count()), PROBE_TIMEOUT_MS, 'Redis (queues)');
      return { ok: true, size, ms };
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
  }

  async check() {
    const session = this.health.check('message_queue');
    const d = await this.depth();
    return d.ok
      ? session.up({
          message: `queues ${this.queues.map((q) => q.name).join(', ')} reachable; ${d.size} job(s) waiting, active or delayed`,
          queue_size: d.size,
          redis_primary: connectedAddress(this.queues[0]!.client) ?? null,
        })
      : session.down({
          message: `message queue unreachable: ${d.error}`,
          queue_size: null,
          redis_primary: null,
        });
  }
}
