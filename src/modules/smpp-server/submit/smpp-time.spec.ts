import smpp from 'smpp';
import { describe, expect, it } from 'vitest';
import { keepSubmitTimesAsText, parseSmppTime, submitTimes } from './smpp-time.js';

const now = new Date('2026-12-06T22:00:00.000Z');

describe('parseSmppTime', () => {
  it('reads the absolute form with its offset from UTC in quarter hours', () => {
    expect(parseSmppTime('261207100000000+', now)).toEqual(new Date('2026-12-07T10:00:00.000Z'));
    // 04 quarter hours ahead of UTC: 11:00 local is 10:00 UTC; 08 behind: 06:00 local is 08:00 UTC.
    expect(parseSmppTime('261207110000004+', now)).toEqual(new Date('2026-12-07T10:00:00.000Z'));
    expect(parseSmppTime('261207060000508-', now)).toEqual(new Date('2026-12-07T08:00:00.500Z'));
  });

  it('reads the relative form from now, calendar units included', () => {
    expect(parseSmppTime('000000013000000R', now)).toEqual(new Date('2026-12-06T23:30:00.000Z'));
    expect(parseSmppTime('000102000000000R', now)).toEqual(new Date('2027-01-08T22:00:00.000Z'));
  });

  it('is null when empty and undefined for anything that is not an SMPP time', () => {
    expect(parseSmppTime('', now)).toBeNull();
    expect(parseSmppTime(undefined, now)).toBeNull();
    for (const bad of [
      '2612071000',
      '261207100000000Z',
      '261307100000000+',
      '261231240000000+',
      '260230100000000+',
      '261207100000049+',
      'abcdefghijklmnoR',
      '261207100000000+ ',
    ])
      expect(parseSmppTime(bad, now), bad).toBeUndefined();
  });
});

describe('submitTimes', () => {
  it('gives send_at and the validity counted from it, capped at what the service keeps', () => {
    expect(submitTimes('000000010000000R', '000000030000000R', now)).toEqual({
      ok: true,
      sendAt: '2026-12-06T23:00:00.000Z',
      validityPeriod: 7200,
    });
    expect(submitTimes('', '001000000000000R', now)).toEqual({ ok: true, validityPeriod: 604_800 });
    expect(submitTimes('', '', now)).toEqual({ ok: true });
  });

  it('refuses a bad schedule with ESME_RINVSCHED and a bad or spent validity with ESME_RINVEXPIRY', () => {
    expect(submitTimes('tomorrow', '', now)).toMatchObject({ ok: false, status: 0x61 });
    expect(submitTimes('', '261307100000000+', now)).toMatchObject({ ok: false, status: 0x62 });
    expect(submitTimes('', '261206210000000+', now)).toMatchObject({ ok: false, status: 0x62 });
    expect(submitTimes('000000020000000R', '000000010000000R', now)).toMatchObject({
      ok: false,
      status: 0x62,
    });
  });
});

describe('keepSubmitTimesAsText', () => {
  it('has the library read a submit_sm time as the text received and still write one', () => {
    keepSubmitTimesAsText();
    const sent = new smpp.PDU('submit_sm', {
      destination_addr: '260971234567',
      short_message: 'hi',
      schedule_delivery_time: 'not a time at all',
      validity_period: '000000013000000R',
    });
    const read = smpp.PDU.fromBuffer(sent.toBuffer()) as smpp.PDU;
    expect(read.schedule_delivery_time).toBe('not a time at all');
    expect(read.validity_period).toBe('000000013000000R');
  });
});
