import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Account } from '../../accounts/account.entity.js';
import type { ApiKey } from '../api-key.entity.js';
import type { IpAllowList } from './ip-allow-list.js';

/** Who is calling, as the auth guard found it. */
export interface AuthContext {
  key: ApiKey;
  account: Account;
  /** The key's parsed allow list (IpAllowGuard); null or absent: any address. */
  allowList?: IpAllowList | null;
  /** Changes with the account's password (ApiKeysService.passwordTag); voids remembered password checks. */
  passwordTag?: string;
  /** A sub-account's parent account, as read with the key (null or absent: none, or not read). */
  parent?: Account | null;
}

/** Whose data a request reads and changes: the key's account, on the key's side (live or test). */
export interface DataSide {
  accountId: string;
  testMode: boolean;
}

export function sideOf(auth: AuthContext): DataSide {
  return { accountId: auth.account.id, testMode: auth.key.mode === 'test' };
}

export type AuthedRequest = Request & { id: string; auth?: AuthContext };

/**
 * Who is calling, from a request the API key guard accepted. Controllers read it with `@Auth()`;
 * guards and interceptors, which have the request, call this.
 */
export function authOf(req: AuthedRequest): AuthContext {
  if (!req.auth) throw new Error('Auth used on a route without the API key guard');
  return req.auth;
}

export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext =>
  authOf(ctx.switchToHttp().getRequest<AuthedRequest>()),
);
