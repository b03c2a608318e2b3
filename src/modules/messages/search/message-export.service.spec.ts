import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import type { ExportRow } from '../message-search.store.js';
import { CSV_HEADER, csvLine, EXPORT_FIELDS, ndjsonLine } from './message-export.service.js';

const row = (over: Partial<ExportRow> = {}): ExportRow => ({
  id: '1795312979464001001',
  uuid: '01a200fe-0dfd-7511-ad60-13d93139bcee',
  channel: 'sms',
  send_request_id: '1795312979464001000',
  user_reference_id: null,
  recipient: '260971234567',
  status: 'DELIVERED',
  reason: null,
  units: 1,
  cost: '0.250000',
  currency: 'ZMW',
  created_at: '2026-11-22T18:25:13.476Z',
  updated_at: '2026-11-22T18:25:14.517Z',
  fallback_message_id: null,
  fallback_of: null,
  ...over,
});

describe('export lines', () => {
  it.each([
    ['plain', null],
    ['a comma', 'inv, 7'],
    ['quotes', 'say "hi"'],
    ['a line break', 'two\nlines'],
    ['a carriage return', 'cr\rhere'],
    ['a leading space and unicode', ' Zürich ✓'],
    ['an empty string', ''],
  ])('writes a CSV field with %s exactly as csv-stringify does', (_, ref) => {
    const r = row({ user_reference_id: ref, reason: ref === null ? null : 'X' });
    const fields = [
      r.uuid,
      r.send_request_id,
      r.user_reference_id,
      r.channel,
      r.recipient,
      r.status,
      r.reason,
      r.units,
      0.25,
      r.currency,
      r.created_at,
      r.updated_at,
      r.fallback_message_id,
      r.fallback_of,
      r.smpp_message_id,
    ];
    expect(csvLine(r)).toBe(stringify([fields], { quoted_empty: false }));
  });

  it.each(['=HYPERLINK("http://x")', '+1', '-2', '@SUM(A1)', '\tx', '\rx'])(
    'neutralises a field that a spreadsheet would run as a formula (%j) with a leading quote',
    (ref) => {
      const r = row({ user_reference_id: ref, recipient: `${ref}@example.com`, reason: ref });
      const fields: Array<string | number> = [r.uuid, r.send_request_id, `'${ref}`, r.channel];
      fields.push(`'${ref}@example.com`, r.status, `'${ref}`, r.units, 0.25);
      fields.push(r.currency, r.created_at, r.updated_at, '', '', '');
      expect(csvLine(r)).toBe(stringify([fields], { quoted_empty: false }));
    },
  );

  it('writes a rejected recipient holding NUL, ESC or other controls escaped, in CSV and NDJSON alike', () => {
    const r = row({
      recipient: '26097\u0000123\u001b[2J\u0007',
      status: 'REJECTED',
      reason: 'INVALID_NUMBER',
    });
    const line = csvLine(r);
    expect(line).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
    expect(line.split(',')[4]).toBe('26097\\u0000123\\u001b[2J\\u0007');
    expect(ndjsonLine(r).trimEnd()).not.toMatch(/[\u0000-\u001f]/);
  });

  it('starts CSV with the header of the documented columns: the twelve of the search, then the two links', () => {
    expect(CSV_HEADER).toBe(`${EXPORT_FIELDS.join(',')}\n`);
    expect(CSV_HEADER).toBe(stringify([[...EXPORT_FIELDS]]));
    expect(CSV_HEADER).toBe(
      'message_id,api_reference,user_reference_id,channel,recipient,status,reason,units,cost,currency,' +
        'created_at,updated_at,fallback_message_id,fallback_of,smpp_message_id\n',
    );
  });

  it('writes the fallback links in the last two columns, empty in CSV and null in NDJSON when none', () => {
    const chat = row({ channel: 'chat', fallback_message_id: '01a200fe-0dfd-7511-ad60-13d93139bc01' });
    const sms = row({ uuid: '01a200fe-0dfd-7511-ad60-13d93139bc01', fallback_of: chat.uuid });
    expect(csvLine(chat).trimEnd().split(',').slice(12, 14)).toEqual([chat.fallback_message_id, '']);
    expect(csvLine(sms).trimEnd().split(',').slice(12, 14)).toEqual(['', chat.uuid]);
    expect(csvLine(row()).trimEnd().split(',')).toHaveLength(15);
    expect(JSON.parse(ndjsonLine(chat))).toMatchObject({
      fallback_message_id: chat.fallback_message_id,
      fallback_of: null,
    });
    expect(JSON.parse(ndjsonLine(sms))).toMatchObject({ fallback_message_id: null, fallback_of: chat.uuid });
  });

  it("writes an SMPP message's decimal id last, empty in CSV and null in NDJSON for any other message", () => {
    const smpp = row({ smpp_message_id: '1795312979464001001' });
    expect(csvLine(smpp).trimEnd().split(',').at(-1)).toBe('1795312979464001001');
    expect(JSON.parse(ndjsonLine(smpp))).toMatchObject({ smpp_message_id: '1795312979464001001' });
    expect(JSON.parse(ndjsonLine(row()))).toMatchObject({ smpp_message_id: null });
  });

  it('names an e-mail by its numeric id and an SMS by its UUID, with cost as a number', () => {
    expect(JSON.parse(ndjsonLine(row({ channel: 'email' })))).toMatchObject({
      message_id: '1795312979464001001',
      cost: 0.25,
    });
    const sms = JSON.parse(ndjsonLine(row()));
    expect(Object.keys(sms)).toEqual([...EXPORT_FIELDS]);
    expect(sms).toMatchObject({ message_id: '01a200fe-0dfd-7511-ad60-13d93139bcee', units: 1, reason: null });
  });
});
