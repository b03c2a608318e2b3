import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
import { ShortLinkStore, type ClickTally, type LiveLink } from './short-link.store.js';

/** How often the counts gathered are written. */
export const CLICK_FLUSH_MS = 1000;

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
  private closing = false;
  private lastWrite: Promise<unknown> = Promise.resolve();
  private readonly task = new PeriodicTask({
    run: () => this.flush(),
    everyMs: CLICK_FLUSH_MS,
    logger: this.logger,
    failure: (err) => `writing link clicks failed (kept for the next write): ${err.message}`,
  });

  constructor(private readonly store: ShortLinkStore) {}

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
    this.afterCount();
  }

  /** A link-preview fetcher or scanner fetched the link: counted apart, not a click. */
  previewed(link: FollowedLink): void {
    this.tally(link.code).previews++;
    this.afterCount();
  }

  /** Writes the counts gathered so far (tests call it rather than wait for the timer). */
  async flush(): Promise<void> {
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
