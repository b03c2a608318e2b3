import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../platform/http/public.decorator.js';
import { jsonErrorExample } from '../../platform/openapi/error-examples.js';
import { ErrorEnvelopeDto } from '../../platform/openapi/error-envelope.dto.js';
import { METRICS_TOKEN_SCHEME } from '../../platform/openapi/api-docs.decorators.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { checkMetricsToken } from './metrics-token.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus scrape endpoint: no API key (@Public), but METRICS_TOKEN when configured. */
@ApiTags('operations')
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Prometheus metrics (text exposition format)',
    description: 'Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; open otherwise.',
  })
  // Dropped from the document when METRICS_TOKEN is unset (platform/openapi/openapi.ts).
  @ApiBearerAuth(METRICS_TOKEN_SCHEME)
  @ApiOkResponse({
    description: 'Prometheus text format 0.0.4',
    content: {
      'text/plain': {
        schema: {
          type: 'string',
          example: 'http_requests_total{method="POST",route="/api/v1/json/bulk/sms",status="200"} 42',
        },
      },
    },
  })
  @ApiUnauthorizedResponse({
    description: 'METRICS_TOKEN is set and the bearer token is missing or wrong',
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorEnvelopeDto) },
        examples: {
          MISSING_API_KEY: {
            summary: 'no token',
            value: {
              ...jsonErrorExample('MISSING_API_KEY'),
              message: 'The metrics token is required: Authorization: Bearer <METRICS_TOKEN>.',
            },
          },
          INVALID_API_KEY: {
            summary: 'wrong token',
            value: { ...jsonErrorExample('INVALID_API_KEY'), message: 'The metrics token is not valid.' },
          },
        },
      },
    },
  })
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    checkMetricsToken(this.config.metricsToken, req);
    const { contentType, body } = await this.metrics.render();
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).send(body);
  }
}
