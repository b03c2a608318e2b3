import { Inject, Injectable } from '@nestjs/common';
import { isbot } from 'isbot';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { TtlCache } from '../../platform/caching/ttl-cache.js';
import { CODE_PATTERN } from '../links/link-text.js';
import { LinkClicks } from './link-clicks.service.js';
import { ShortLinkStore, type FoundLink } from '../links/short-link.store.js';

const DAY_MS = 86_400_000;
/**
 * How long a code's row (or its absence) is believed after it was read: a burst of clicks on one
 * link, or of guesses at one code, reads the database once. A link erased or pruned meanwhile
 * may still redirect for this long on a process that had just read it.
 */
export const LINK_CACHE_MS = 10_000;
const LINK_CACHE_ENTRIES = 100_000;

/**
 * Fetchers that unfurl a link for a preview, and scanners that check it before a person sees it
 * (facebookexternalhit, Slackbot, Twitterbot, WhatsApp, TelegramBot, LinkedInBot, Discordbot,
 * SkypeUriPreview, Googlebot, bingbot, ...), as the `isbot` package recognises them; it also
 * counts bare HTTP clients (curl, python-requests) as such. A request without a User-Agent is
 * counted as a click: some mail and messaging apps open links that way.
 */
export function isPreviewAgent(userAgent: string | undefined): boolean {
  return userAgent !== undefined && userAgent !== '' && isbot(userAgent);
}

/** GET /l/<code>: where a code leads, and its click (or preview) counted. */
@Injectable()
export class LinkRedirects {
  private readonly cache = new TtlCache<FoundLink | null>(LINK_CACHE_MS, LINK_CACHE_ENTRIES);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: ShortLinkStore,
    private readonly clicks: LinkClicks,
  ) {}

  /**
   * The target of a live code, its visit counted; null for an unknown or expired code. A HEAD
   * request (`headOnly`) is a preview whoever sends it: a browser following a link asks with GET,
   * while link checkers and scanners ask for the headers alone.
   */
  async follow(code: string, userAgent: string | undefined, headOnly = false): Promise<string | null> {
    if (!CODE_PATTERN.test(code)) return null;
    // A code read in the last seconds is answered without a promise to wait for.
    const found =
      this.cache.peek(code) ??
      (await this.cache.get(code, async () => (await this.store.find(code)) ?? null));
    const now = new Date();
    const expiresAt = found && found.created_at.getTime() + this.config.shortLinks.retentionDays * DAY_MS;
    if (!found || expiresAt! <= now.getTime()) return null;
    const link = { code, url: found.url, message_id: found.message_id };
    if (headOnly || isPreviewAgent(userAgent)) this.clicks.previewed(link);
    else this.clicks.clicked(link, now);
    return found.url;
  }
}
