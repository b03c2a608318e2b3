import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

/** The `shorten_links` field of the SMS and chat send bodies (JSON). */
export function ShortenLinksField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description:
        'Replace each http(s) link of the text with a short link of its own per recipient (`<SHORT_LINK_BASE_URL>/<code>`), whose clicks the message lookup shows. Segments and price are those of the text as sent. Refused (400) when the service has no SHORT_LINK_BASE_URL.',
      example: true,
    }),
    IsOptional(),
    IsBoolean(),
  );
}

/** The request's shorten_links: a JSON boolean (the DTO has checked it) or XML's `true`/`false` text. */
export function shortenLinksOf(body: { shorten_links?: boolean | string | null }): boolean | null {
  const v = body.shorten_links;
  if (v === undefined || v === null) return null;
  return v === true || v === 'true';
}
