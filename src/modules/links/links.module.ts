import { Module } from '@nestjs/common';
import { ShortLinkStore } from './short-link.store.js';
import { ShortLinks } from './short-links.service.js';

/** Short links: their table and the rules of making them (the send pipeline, lookups, retention). */
@Module({
  providers: [ShortLinkStore, ShortLinks],
  exports: [ShortLinkStore, ShortLinks],
})
export class LinksModule {}
