import { Controller, Get, Param, Query } from '@nestjs/common';
import { IsNumberString, IsOptional, Matches } from 'class-validator';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { MessageQueryService } from './message-query.service.js';

export class MessageListQuery {
  @Matches(/^\d{1,20}$/, { message: 'api_reference must be the digits of a send answer' })
  api_reference: string;

  @IsOptional() @IsNumberString({ no_symbols: true })
  page?: string;

  @IsOptional() @IsNumberString({ no_symbols: true })
  per_page?: string;
}

@Controller('api/v1/json/messages')
export class MessagesController {
  constructor(private readonly messages: MessageQueryService) {}

  @Get()
  list(@Auth() auth: AuthContext, @Query() q: MessageListQuery) {
    const page = Math.max(1, Number(q.page ?? 1));
    const perPage = Math.min(1000, Math.max(1, Number(q.per_page ?? 100)));
    return this.messages.byReference(auth.account.id, q.api_reference, page, perPage);
  }

  @Get(':messageId')
  one(@Auth() auth: AuthContext, @Param('messageId') messageId: string) {
    return this.messages.one(auth.account.id, messageId);
  }
}
