import { Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext, type AuthedRequest } from '../../../api-keys/auth/auth-context.js';
import { AppException } from '../../../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../../../platform/errors/error-codes.js';
import {
  parseXmlDocument,
  toXmlSendRequest,
  type XmlSendRequest,
} from '../../../../platform/xml/xml-codec.js';
import { xmlSendBody } from '../../../../platform/xml/xml-send-body.js';
import { SendService } from '../../send.service.js';
import { smsInput } from './sms-input.js';
import type { SmsSendDto } from './sms-send.dto.js';
import { SmsPolicy } from './sms.policy.js';
import { Idempotent } from '../../../idempotency/idempotent.decorator.js';
import { claimOf } from '../../../idempotency/idempotency.guard.js';

/** The XML fields and their limits; the same limits as SmsSendDto. `source` is required here. */
const TEXT_FIELDS: Array<{ name: Exclude<keyof XmlSendRequest, 'to'>; required: boolean; max?: number }> = [
  { name: 'from', required: true, max: 64 },
  { name: 'message', required: true },
  { name: 'source', required: true, max: 255 },
  { name: 'callback_url', required: false, max: 2048 },
  { name: 'user_reference_id', required: false, max: 255 },
  { name: 'send_at', required: false, max: 40 },
  { name: 'validity_period', required: false, max: 7 },
  { name: 'shorten_links', required: false, max: 5 },
];

const KNOWN_ELEMENTS = new Set<string>(['to', ...TEXT_FIELDS.map((f) => f.name)]);

/**
 * There is no DTO for a parsed document, so field types are checked here: every field must be
 * one element of plain text (a repeated element or one with child elements is refused); `to`
 * may repeat and may be comma-separated, and toXmlSendRequest has already split it. An element
 * of another name is refused like an unknown JSON field: a misspelt `<sendAt>` must not send now.
 */
export function checkXmlSmsRequest(req: XmlSendRequest, elements: readonly string[] = []): SmsSendDto {
  const problems: ErrorDetail[] = [];
  for (const name of elements) {
    if (!KNOWN_ELEMENTS.has(name)) problems.push({ field: name, message: 'unknown field' });
  }
  const out: Record<string, unknown> = {};
  for (const { name, required, max } of TEXT_FIELDS) {
    const value = req[name];
    if (value === undefined) {
      if (required) problems.push({ field: name, message: `${name} is required` });
      continue;
    }
    if (typeof value !== 'string') {
      problems.push({
        field: name,
        message: Array.isArray(value)
          ? `${name} must appear once`
          : `${name} must be plain text, without child elements`,
      });
      continue;
    }
    if (required && value.trim() === '') problems.push({ field: name, message: `${name} is required` });
    else if (max !== undefined && value.length > max)
      problems.push({ field: name, message: `${name} must be at most ${max} characters` });
    else if (value !== '' || required) out[name] = value;
  }
  if (out.shorten_links !== undefined && out.shorten_links !== 'true' && out.shorten_links !== 'false')
    problems.push({ field: 'shorten_links', message: 'shorten_links must be true or false' });
  if (req.to === undefined) {
    problems.push({ field: 'to', message: 'to is required' });
  } else if (!Array.isArray(req.to) || !req.to.every((x) => typeof x === 'string')) {
    problems.push({
      field: 'to',
      message: 'to must be plain text: repeat the element or separate numbers with commas',
    });
  } else if (req.to.length === 0) {
    problems.push({ field: 'to', message: 'to is required' });
  } else {
    out.to = req.to;
  }
  // The XML error shape has no details list, so the sentence names the problems.
  if (problems.length) {
    throw AppException.validation(
      problems,
      `The request is not valid: ${problems
        .map((p) => (p.message === 'unknown field' ? `unknown field ${p.field}` : p.message))
        .join('; ')}.`,
    );
  }
  // Every field checked above is one of the JSON route's, as plain text.
  return out as SmsSendDto;
}

/**
 * POST /api/v1/xml/bulk/sms. The body arrives as text whatever its
 * Content-Type (configure-app.ts); errors on this path are rendered as XML by the error filter.
 * After parsing it is the same request as the JSON SMS endpoint, through the same pipeline.
 */
@ApiTags('sms')
@ApiKeyAuth()
@Controller('api/v1/xml/bulk/sms')
export class SmsXmlController {
  constructor(
    private readonly sends: SendService,
    private readonly policy: SmsPolicy,
  ) {}

  @Post()
  @HttpCode(200)
  @Header('Content-Type', 'application/xml; charset=utf-8')
  @ApiOperation({
    summary: 'Send SMS from an XML document',
    description:
      'Any root element; children from, to (repeat it or comma-separate), message, source, optional callback_url, user_reference_id, send_at, validity_period and shorten_links (true or false). Parsed as XML whatever Content-Type says, except text/plain, application/x-www-form-urlencoded and multipart/form-data (415: an HTML form on any site can send those); DOCTYPE and entities are refused.',
  })
  @ApiConsumes('application/xml', 'text/xml', 'application/json')
  @ApiBody({
    schema: {
      type: 'string',
      example:
        '<request><from>ACME</from><to>260971234567</to><to>260971234568</to><message>Hello from ACME</message><source>API</source></request>',
    },
  })
  @ApiProduces('application/xml')
  @ApiOkResponse({
    description: 'One <recipient> per recipient',
    content: {
      'application/xml': {
        schema: {
          type: 'string',
          example:
            '<?xml version="1.0" encoding="UTF-8"?><response><reference>1764184470578998353</reference><status>SUCCESS</status><recipient>260971234567</recipient><recipient>260971234568</recipient></response>',
        },
      },
    },
  })
  @Idempotent()
  @ApiErrors([400, 401, 402, 403, 409, 413, 422, 415, 429, 500, 503], { xml: true })
  async send(@Auth() auth: AuthContext, @Req() req: AuthedRequest): Promise<string> {
    const text = typeof req.body === 'string' ? req.body : '';
    const doc = parseXmlDocument(text);
    const fields = checkXmlSmsRequest(toXmlSendRequest(doc), Object.keys(doc));
    const outcome = await this.sends.send(this.policy, auth, smsInput(fields), claimOf(req));
    return xmlSendBody(outcome.apiReference, outcome.entries, outcome.sendAt);
  }
}
