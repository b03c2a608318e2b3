import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
import { WebhookEvents } from '../callbacks/webhooks/webhook-events.service.js';
import { ShortLinkStore, type ClickTally, type LiveLink } from '../links/short-link.store.js';

/** How often the counts gathered are written. */
export const CLICK_FLUSH_MS = 1000;
/** Clicks whose link.clicked events wait for the next write; beyond, the oldest are dropped and logged. */
const MAX_PENDING_EVENTS = 100_000;

interface ClickEvent {
  code: string;
  url: string;
  messageId: string;
  at: Date;
}

/** A followed link: its code and what the redirect read of it. */
export interface FollowedLink extends LiveLink {
  code: string;
}

/**
 * Counts clicks and previews in memory and writes them in one statement a second, so the
 * redirect answers without waiting for a write (and a burst on one link is one row update). A
 * write that fails keeps its counts for the next. At shutdown the counts are written once the
 * HTTP requests in flight have ended, before the database closes; a click still counted after
 * that is written at once.
 */
@Injectable()
export class LinkClicks implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('LinkClicks');
  private tallies = new Map<string, ClickTally>();
  private events: ClickEvent[] = [];
  private closing = false;
  private lastWrite: Promise<unknown> = Promise.resolve();
  private readonly task = new PeriodicTask({
    run: () => this.flush(),
    everyMs: CLICK_FLUSH_MS,
    logger: this.logger,
    failure: (err) => `writing link clicks failed (kept for the next write): ${err.message}`,
  });

  constructor(
    private readonly store: ShortLinkStore,
    private readonly webhooks: WebhookEvents,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
    this.closing = true;
    await this.flush();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.lastWrite.catch(() => undefined);
  }

  /**
   * A person followed the link: the one place a click is recorded, where anything else that
   * follows a click (an event to the account) is to be added.
   */
  clicked(link: FollowedLink, at: Date): void {
    const t = this.tally(link.code);
    t.clicks++;
    if (!t.firstAt) t.firstAt = at;
    t.lastAt = at;
    this.events.push({ code: link.code, url: link.url, messageId: link.message_id, at });
    if (this.events.length > MAX_PENDING_EVENTS) {
      this.events.shift();
      this.logger.warn('link.clicked events are not being kept: the oldest is dropped');
    }
    this.afterCount();
  }

  /** A link-preview fetcher or scanner fetched the link: counted apart, not a click. */
  previewed(link: FollowedLink): void {
    this.tally(link.code).previews++;
    this.afterCount();
  }

  /** Writes the counts gathered so far, then their link.clicked events (tests call it rather than wait for the timer). */
  async flush(): Promise<void> {
    await this.writeCounts();
    await this.publishClicks();
  }

  /**
   * The link.clicked events of the clicks counted since the last write, to the message's account
   * (and side). Kept for the next write when they could not be handed over.
   */
  private async publishClicks(): Promise<void> {
    if (this.events.length === 0) return;
    const events = this.events;
    this.events = [];
    try {
      const owners = await this.store.ownersOf([...new Set(events.map((e) => e.messageId))]);
      await this.webhooks.publish(
        events.flatMap((e) => {
          const owner = owners.get(e.messageId);
          if (!owner) return []; // the message was removed meanwhile
          return [
            {
              accountId: owner.account_id,
              type: 'link.clicked' as const,
              test: Boolean(owner.test_mode),
              occurredAt: e.at,
              data: {
                code: e.code,
                url: e.url,
                message_id: owner.message_id,
                clicked_at: e.at.toISOString(),
              },
            },
          ];
        }),
      );
    } catch (err) {
      this.events = [...events, ...this.events].slice(-MAX_PENDING_EVENTS);
      throw err;
    }
  }

  private async writeCounts(): Promise<void> {
    if (this.tallies.size === 0) return this.lastWrite.then(() => undefined);
    const batch = [...this.tallies.values()];
    this.tallies = new Map();
    const write = this.store.addClicks(batch).catch((err: unknown) => {
      for (const t of batch) this.merge(t);
      throw err;
    });
    this.lastWrite = write.catch(() => undefined);
    await write;
  }

  private tally(code: string): ClickTally {
    let t = this.tallies.get(code);
    if (!t) this.tallies.set(code, (t = { code, clicks: 0, previews: 0, firstAt: null, lastAt: null }));
    return t;
  }

  private merge(old: ClickTally): void {
    const t = this.tally(old.code);
    t.clicks += old.clicks;
    t.previews += old.previews;
    if (old.firstAt && (!t.firstAt || old.firstAt < t.firstAt)) t.firstAt = old.firstAt;
    if (old.lastAt && (!t.lastAt || old.lastAt > t.lastAt)) t.lastAt = old.lastAt;
  }

  private afterCount(): void {
    if (this.closing)
      this.flush().catch((err: Error) =>
        this.logger.warn(`writing link clicks at shutdown failed: ${err.message}`),
      );
  }
}
