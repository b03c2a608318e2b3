import { Injectable } from '@nestjs/common';
import { AppException } from '../../platform/errors/app.exception.js';
import type { Account } from '../accounts/account.entity.js';
import { Pricing } from '../balance/pricing/pricing.service.js';
import { RoutingService } from '../delivery/smpp/routing.service.js';
import { invalidNumberHint, normalisePhone } from '../messages/recipients.js';
import { numberFacts, type NumberFacts } from './number-facts.js';

/** A number's facts and what one SMS segment to it would cost the account (null: no route takes it). */
export interface NumberLookup extends NumberFacts {
  smsPrice: string | null;
  currency: string;
}

/**
 * The number look-up: the shipped number plan's facts of a number, and its SMS price for the
 * caller, found as a send would price it (routes, then destination or channel price).
 */
@Injectable()
export class LookupService {
  constructor(
    private readonly routing: RoutingService,
    private readonly pricing: Pricing,
  ) {}

  async lookup(account: Pick<Account, 'id' | 'currency'>, raw: string): Promise<NumberLookup> {
    const check = normalisePhone(raw);
    if (!check.ok)
      throw AppException.validation(
        [
          {
            field: 'number',
            message:
              invalidNumberHint(raw) ??
              'a phone number: 8-15 digits with the country code, e.g. 260971234567',
          },
        ],
        'The number is not a phone number in international form.',
      );
    const entries = [{ recipient: check.value, status: 'ACKNOWLEDGED' as const, reason: undefined }];
    const [routes, prices] = await Promise.all([
      this.routing.sendRoutes('sms'),
      this.pricing.snapshot(account.id, 'sms'),
    ]);
    routes.rejectUnroutable(account.id, entries);
    const routed = entries[0]!.status === 'ACKNOWLEDGED';
    const smsPrice = routed ? prices.unitPrices(entries)[0]! : null;
    return { ...numberFacts(check.value), smsPrice, currency: account.currency };
  }
}
