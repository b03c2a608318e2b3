import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { AppException } from '../../../platform/errors/app.exception.js';
import type { AuthedRequest } from './auth-context.js';
import { displayAddress } from './ip-allow-list.js';

/**
 * Second guard of the chain: a key with an allow list is accepted only from those addresses.
 * The address is `req.ip`, which express derives from X-Forwarded-For only when the peer is one
 * of the proxies named in TRUST_PROXY (configure-app.ts sets 'trust proxy'); from anyone else
 * the header is ignored, so a client cannot claim an address it does not have.
 */
@Injectable()
export class IpAllowGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const list = req.auth?.allowList;
    // No auth: a @Public route (the key guard has already refused everything else).
    if (!list || list.allows(req.ip)) return true;
    throw new AppException(
      'IP_NOT_ALLOWED',
      `This API key is not allowed from ${displayAddress(req.ip) ?? 'this address'}.`,
    );
  }
}
