import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppValidationPipe } from '../src/platform/validation/app-validation.pipe.js';
import { SmsSendDto } from '../src/modules/sending/channels/sms/sms-send.dto.js';

/** B1's baseline: the same route, body parser and DTO validation, and nothing else. */
@Controller('api/v1/json/bulk/sms')
class BaselineController {
  @Post()
  @HttpCode(200)
  send(@Body() dto: SmsSendDto) {
    return {
      api_reference: '0',
      data: [{ message_id: '0', mobile_number: String(dto.to), status: 'ACKNOWLEDGED' }],
      message: 'successful',
      success: true,
    };
  }
}

@Module({ controllers: [BaselineController] })
class BaselineModule {}

const app = await NestFactory.create(BaselineModule, { logger: false });
app.useGlobalPipes(new AppValidationPipe());
await app.listen(Number(process.argv[2] ?? 3999), '127.0.0.1');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
