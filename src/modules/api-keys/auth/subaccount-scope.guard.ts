import {
  applyDecorators,
  createParamDecorator,
  Injectable,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { AppException } from '../../../platform/errors/app.exception.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { authOf, sideOf, type AuthedRequest, type DataSide } from './auth-context.js';

/** The query parameter by which a parent account reads one of its sub-accounts' data. */
export const SUBACCOUNT_PARAM = 'subaccount';

export const SUBACCOUNT_QUERY_DOC = {
  name: SUBACCOUNT_PARAM,
  required: false,
  description:
    "A sub-account's username: read that sub-account's data instead of the key's own account's " +
    "(the key's account must be its parent; another account's sub-account is 404). The key's mode still decides live or test data.",
  schema: { type: 'string', maxLength: 64 },
} as const;

/** The `subaccount` field of a read route's query class (the guard reads and checks its value). */
export function SubaccountQueryField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description: SUBACCOUNT_QUERY_DOC.description,
      maxLength: 64,
      example: 'acme-retail',
    }),
    IsOptional(),
    IsString(),
    MaxLength(64),
  );
}

type ScopedRequest = AuthedRequest & { readSide?: DataSide };

/**
 * With `subaccount=<username>`, the route reads that sub-account's data: the caller's account
 * must be its parent, else 404 as for any unknown thing (another tenant's sub-accounts are not
 * confirmed to exist). A sub-account has none, so its key always gets 404 here.
 */
@Injectable()
export class SubaccountScopeGuard implements CanActivate {
  constructor(private readonly accounts: AccountsService) {}

  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<ScopedRequest>();
    const raw = (req.query as Record<string, unknown> | undefined)?.[SUBACCOUNT_PARAM];
    if (raw === undefined) return true;
    if (typeof raw !== 'string' || raw === '' || raw.length > 64)
      throw AppException.validation(
        [{ field: SUBACCOUNT_PARAM, message: "a sub-account's username, given once" }],
        'subaccount must name one sub-account.',
      );
    return this.scope(req, raw);
  }

  private async scope(req: ScopedRequest, username: string): Promise<boolean> {
    const auth = authOf(req);
    const child = await this.accounts.findSubaccount(auth.account.id, username);
    if (!child)
      throw new AppException('NOT_FOUND', `No sub-account ${JSON.stringify(username)} of this account.`, [
        { field: SUBACCOUNT_PARAM, message: 'no such sub-account' },
      ]);
    req.readSide = { accountId: child.id, testMode: auth.key.mode === 'test' };
    return true;
  }
}

/** A read route that a parent may point at a sub-account with `subaccount=`. Its module imports AccountsModule. */
export function SubaccountReadable() {
  return applyDecorators(UseGuards(SubaccountScopeGuard));
}

/** Whose data a read route answers: the sub-account named by `subaccount=`, else the key's own side. */
export function readSideOf(req: AuthedRequest): DataSide {
  return (req as ScopedRequest).readSide ?? sideOf(authOf(req));
}

export const ReadSide = createParamDecorator((_: unknown, ctx: ExecutionContext): DataSide =>
  readSideOf(ctx.switchToHttp().getRequest<AuthedRequest>()),
);
