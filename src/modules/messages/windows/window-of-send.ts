import { AppException } from '../../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../../platform/errors/error-codes.js';
import type { Account } from '../../accounts/account.entity.js';
import { parseSendWindow, type SendWindow } from './send-window.js';

/** The window a send keeps: its own `send_window` (checked; 400 naming each bad field), else the account's. */
export function windowOfSend(raw: unknown, account: Pick<Account, 'sendWindow'>): SendWindow | null {
  if (raw != null) {
    const problems: ErrorDetail[] = [];
    const own = parseSendWindow(raw, 'send_window', problems);
    if (!own) throw AppException.validation(problems);
    return own;
  }
  return (account.sendWindow as SendWindow | null | undefined) ?? null;
}
