import { Module } from '@nestjs/common';
import { AuthThrottle } from '../../common/auth/auth-throttle.js';
import { AccountsService } from './accounts.service.js';
import { CredentialCheck } from './credential-check.js';

@Module({
  providers: [AccountsService, AuthThrottle, CredentialCheck],
  exports: [AccountsService, AuthThrottle, CredentialCheck],
})
export class AccountsModule {}
