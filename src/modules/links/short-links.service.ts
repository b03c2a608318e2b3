import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { linkTemplate, stampLinks, type LinkTemplate } from './link-text.js';
import { ShortLinkStore, type NewShortLink } from './short-link.store.js';

/** A message's link as its lookup shows it. */
export interface MessageLink {
  url: string;
  short_url: string;
  clicks: number;
  first_click_at: string | null;
}

/** Where the API answers short links when SHORT_LINK_BASE_URL is not (or no longer) set. */
const OWN_PATH = '/l';

/**
 * Short links for sends with `shorten_links`: the text's links cut out once per text
 * (`shortener`), a fresh code per recipient and link when the send's rows are built (`stamp`),
 * and the links a message's lookup shows.
 */
@Injectable()
export class ShortLinks {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: ShortLinkStore,
  ) {}

  /** Cuts a text around its links; refused (400 naming SHORT_LINK_BASE_URL) when no base is set. */
  shortener(): (text: string) => LinkTemplate | null {
    const base = this.config.shortLinks.baseUrl;
    if (!base)
      throw AppException.validation(
        [{ field: 'shorten_links', message: 'SHORT_LINK_BASE_URL is not set on this service' }],
        'shorten_links needs SHORT_LINK_BASE_URL, which this service does not set.',
      );
    return (text) => linkTemplate(text, base);
  }

  /**
   * One recipient's text, each link replaced by a new short link; the links' rows are added
   * to `into` for the send's transaction.
   */
  stamp(t: LinkTemplate, messageId: string, createdAt: Date, into: NewShortLink[]): string {
    const { text, codes } = stampLinks(t, this.config.shortLinks.baseUrl!);
    for (let i = 0; i < codes.length; i++)
      into.push({ code: codes[i]!, messageId, position: i, url: t.urls[i]!, createdAt });
    return text;
  }

  /** A message's links, in the order of its text (none: an empty list). */
  async ofMessage(messageId: string): Promise<MessageLink[]> {
    const base = this.config.shortLinks.baseUrl ?? OWN_PATH;
    return (await this.store.ofMessage(messageId)).map((l) => ({
      url: l.url,
      short_url: `${base}/${l.code}`,
      clicks: Number(l.clicks),
      first_click_at: l.first_click_at?.toISOString() ?? null,
    }));
  }
}
