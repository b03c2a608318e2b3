import { Module } from '@nestjs/common';
import { LinkClicks } from './link-clicks.js';
import { LinkRedirectController } from './link-redirect.controller.js';
import { LinkRedirects } from './link-redirects.js';
import { LinksModule } from './links.module.js';

/** The redirect route of short links and the click counts it keeps (API processes only). */
@Module({
  imports: [LinksModule],
  controllers: [LinkRedirectController],
  providers: [LinkRedirects, LinkClicks],
  exports: [LinkClicks],
})
export class LinksHttpModule {}
