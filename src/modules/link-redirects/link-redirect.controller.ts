import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../platform/http/public.decorator.js';
import { ApiErrors } from '../../platform/openapi/api-docs.decorators.js';
import { LinkRedirects } from './link-redirects.service.js';

/**
 * Neither the redirect nor its 404 may be kept by a browser or proxy: a kept redirect would send
 * the next click straight to the target, uncounted, and a code's answer changes when it expires.
 */
const NO_STORE = 'no-store';
const NO_STORE_HEADER = {
  'Cache-Control': { description: '`no-store`', schema: { type: 'string', example: NO_STORE } },
};

/** A plain page for people who follow a dead link (not the JSON envelope of the API). */
const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body><h1>Link not found</h1><p>This link does not exist or has expired.</p></body></html>\n';

/**
 * The short links of sent messages, opened by their recipients: no key, no body. The response
 * is written here rather than returned, so nothing else is done to it on this hot path.
 */
@ApiTags('links')
@Public()
@Controller('l')
export class LinkRedirectController {
  constructor(private readonly redirects: LinkRedirects) {}

  @Get(':code')
  @ApiOperation({
    summary: 'Follow a short link: 302 to its target, the click counted',
    description:
      'No key. A request whose User-Agent is a link-preview fetcher or scanner (facebookexternalhit, Slackbot, WhatsApp, …), and any HEAD request, is redirected too but counted as a preview, not a click. Answers carry `Cache-Control: no-store`, so every click reaches the service.',
  })
  @ApiParam({
    name: 'code',
    description: 'The code of the short link (letters and digits)',
    example: 'Xk3fP9qLmA',
  })
  @ApiResponse({
    status: 302,
    description: 'To the link target',
    headers: {
      Location: { description: 'the original URL', schema: { type: 'string', format: 'uri' } },
      ...NO_STORE_HEADER,
    },
  })
  @ApiErrors([500, 503])
  @ApiNotFoundResponse({
    description:
      'An unknown code, one older than LINK_RETENTION_DAYS, or one whose message was pruned or erased: a plain HTML page',
    headers: NO_STORE_HEADER,
    content: { 'text/html': { schema: { type: 'string', example: NOT_FOUND_PAGE } } },
  })
  async follow(@Param('code') code: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const url = await this.redirects.follow(code, req.headers['user-agent'], req.method === 'HEAD');
    res.setHeader('Cache-Control', NO_STORE);
    if (url === null) {
      res.status(404).type('html').send(NOT_FOUND_PAGE);
      return;
    }
    res.status(302).location(url).end();
  }
}
