import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { familyRoot } from '../accounts/family.js';
import { Auth, sideOf, type AuthContext } from '../api-keys/auth/auth-context.js';
import type { Channel } from '../messages/channel.js';
import {
  TemplateBodyDto,
  TemplateDeletedDto,
  TemplateDto,
  TemplateListDto,
  TemplateListQuery,
} from './template.dto.js';
import { TemplatesService } from './templates.service.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';

const TEMPLATE_ID = { name: 'templateId', description: 'The template_id given at creation', format: 'uuid' };

@ApiTags('templates')
@ApiKeyAuth()
@Controller('api/v1/json/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Store a message template; a send names it with template_id',
    description:
      "Templates belong to the key's side of the account: live keys and test keys each see, change and send with their own only.",
  })
  @ApiCreatedResponse({ type: TemplateDto })
  @Idempotent()
  @ApiErrors([400, 401, 403, 409, 413, 422, 415, 429, 500, 503])
  create(@Auth() auth: AuthContext, @Body() dto: TemplateBodyDto) {
    return this.templates.create(sideOf(auth), dto, familyRoot(auth.account));
  }

  @Get()
  @ApiOperation({
    summary: "The templates of the key's side of the account (live or test), oldest first, paged",
  })
  @ApiOkResponse({ type: TemplateListDto })
  @ApiErrors([400, 401, 403, 429, 500, 503])
  list(@Auth() auth: AuthContext, @Query() q: TemplateListQuery) {
    const page = Number(q.page ?? 1);
    const perPage = Number(q.per_page ?? 100);
    return this.templates.list(sideOf(auth), (q.channel as Channel | undefined) ?? null, page, perPage);
  }

  @Get(':templateId')
  @ApiOperation({ summary: 'One template' })
  @ApiParam(TEMPLATE_ID)
  @ApiOkResponse({ type: TemplateDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  get(@Auth() auth: AuthContext, @Param('templateId') id: string) {
    return this.templates.get(sideOf(auth), id);
  }

  @Put(':templateId')
  @ApiOperation({
    summary: 'Replace a template (name, channel, body, subject); sends already accepted keep their text',
  })
  @ApiParam(TEMPLATE_ID)
  @ApiOkResponse({ type: TemplateDto })
  @ApiErrors([400, 401, 403, 404, 409, 413, 415, 429, 500, 503])
  replace(@Auth() auth: AuthContext, @Param('templateId') id: string, @Body() dto: TemplateBodyDto) {
    return this.templates.replace(sideOf(auth), id, dto);
  }

  @Delete(':templateId')
  @ApiOperation({ summary: 'Delete a template; sends already accepted keep their text' })
  @ApiParam(TEMPLATE_ID)
  @ApiOkResponse({ type: TemplateDeletedDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  remove(@Auth() auth: AuthContext, @Param('templateId') id: string) {
    return this.templates.remove(sideOf(auth), id);
  }
}
