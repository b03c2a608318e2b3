import { Module } from '@nestjs/common';
import { LinkClicks } from './link-clicks.service.js';
import { LinkRedirectController } from './link-redirect.controller.js';
import { LinkRedirects } from './link-redirects.service.js';
import { LinksModule } from '../links/links.module.js';
import { WebhooksModule } from '../callbacks/webhooks/webhooks.module.js';

/** The redirect route of short links and the click counts it keeps (API processes only). */
@Module({
  imports: [LinksModule, WebhooksModule],
  controllers: [LinkRedirectController],
  providers: [LinkRedirects, LinkClicks],
  exports: [LinkClicks],
})
export class LinkRedirectsModule {}
