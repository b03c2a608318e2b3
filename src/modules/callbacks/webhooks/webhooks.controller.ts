import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../platform/openapi/api-docs.decorators.js';
import { Auth, sideOf, type AuthContext } from '../../api-keys/auth/auth-context.js';
import { Idempotent } from '../../idempotency/idempotent.decorator.js';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  DeliveriesQuery,
  UpdateWebhookDto,
  WebhookDeletedDto,
  WebhookDeliveryListDto,
  WebhookDto,
  WebhookListDto,
  WebhookReplayDto,
  WebhookSecretDto,
  WebhookTestDto,
} from './webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

const WEBHOOK_ID = { name: 'webhookId', description: 'The webhook_id given at creation', format: 'uuid' };
const SIDE =
  "Endpoints belong to the key's side of the account: a live key's hear live events, a test key's test events (`\"test\": true`).";
const shownOnce = (what: string) => ({
  field: 'secret',
  replay: (first: Record<string, unknown>) =>
    `The first request with this Idempotency-Key ${what} webhook endpoint ${String(first.webhook_id)}; its secret was shown once, in that answer. If that answer was lost, rotate the endpoint's secret.`,
});

@ApiTags('webhooks')
@ApiKeyAuth()
@Controller('api/v1/json/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Subscribe an endpoint to event types (at most 10 per account); its signing secret is shown once',
    description: SIDE,
  })
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  @Idempotent({ secret: shownOnce('created') })
  @ApiErrors([400, 401, 403, 409, 413, 415, 422, 429, 500, 503])
  create(@Auth() auth: AuthContext, @Body() dto: CreateWebhookDto) {
    return this.webhooks.create(sideOf(auth), dto);
  }

  @Get()
  @ApiOperation({
    summary: "The endpoints of the key's side of the account, oldest first",
    description: SIDE,
  })
  @ApiOkResponse({ type: WebhookListDto })
  @ApiErrors([401, 403, 429, 500, 503])
  list(@Auth() auth: AuthContext) {
    return this.webhooks.list(sideOf(auth));
  }

  @Get(':webhookId')
  @ApiOperation({ summary: 'One endpoint (without its secret)' })
  @ApiParam(WEBHOOK_ID)
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  get(@Auth() auth: AuthContext, @Param('webhookId') id: string) {
    return this.webhooks.get(sideOf(auth), id);
  }

  @Patch(':webhookId')
  @ApiOperation({
    summary:
      'Change an endpoint’s url, events, description or status; `status: enabled` turns a disabled one on again',
  })
  @ApiParam(WEBHOOK_ID)
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrors([400, 401, 403, 404, 413, 415, 429, 500, 503])
  update(@Auth() auth: AuthContext, @Param('webhookId') id: string, @Body() dto: UpdateWebhookDto) {
    return this.webhooks.update(sideOf(auth), id, dto);
  }

  @Delete(':webhookId')
  @ApiOperation({ summary: 'Delete an endpoint and its delivery log; events not yet sent to it are dropped' })
  @ApiParam(WEBHOOK_ID)
  @ApiOkResponse({ type: WebhookDeletedDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  remove(@Auth() auth: AuthContext, @Param('webhookId') id: string) {
    return this.webhooks.remove(sideOf(auth), id);
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Replace the signing secret; events signed from now on use the new one, shown once',
  })
  @ApiParam(WEBHOOK_ID)
  @ApiOkResponse({ type: WebhookSecretDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  rotateSecret(@Auth() auth: AuthContext, @Param('webhookId') id: string) {
    return this.webhooks.rotateSecret(sideOf(auth), id);
  }

  @Post(':webhookId/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a signed webhook.test event now and answer what the endpoint answered, and how fast',
  })
  @ApiParam(WEBHOOK_ID)
  @ApiOkResponse({ type: WebhookTestDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  test(@Auth() auth: AuthContext, @Param('webhookId') id: string) {
    return this.webhooks.test(sideOf(auth), id);
  }

  @Get(':webhookId/deliveries')
  @ApiOperation({ summary: 'The events owed to the endpoint in the last 7 days, newest first, cursor paged' })
  @ApiParam(WEBHOOK_ID)
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  @ApiErrors([400, 401, 403, 404, 429, 500, 503])
  deliveries(@Auth() auth: AuthContext, @Param('webhookId') id: string, @Query() q: DeliveriesQuery) {
    return this.webhooks.deliveriesOf(sideOf(auth), id, q);
  }

  @Post(':webhookId/deliveries/:eventId/replay')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a logged event again (same event_id), retried as any event' })
  @ApiParam(WEBHOOK_ID)
  @ApiParam({ name: 'eventId', description: 'The event_id of the delivery log', format: 'uuid' })
  @ApiOkResponse({ type: WebhookReplayDto })
  @ApiErrors([400, 401, 403, 404, 429, 500, 503])
  replay(@Auth() auth: AuthContext, @Param('webhookId') id: string, @Param('eventId') eventId: string) {
    return this.webhooks.replay(sideOf(auth), id, eventId);
  }
}
