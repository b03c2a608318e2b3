import { escapeXmlText, xmlSuccessBody } from './xml-codec.js';

export interface XmlRecipientEntry {
  recipient: string;
  status: 'ACKNOWLEDGED' | 'SCHEDULED' | 'REJECTED';
  reason?: string;
}

/**
 * The XML send answer: exactly `xmlSuccessBody` — one `<recipient>` per
 * recipient of the request, accepted or not, in request order — followed, only when some were
 * refused, by one `<rejected><recipient>…</recipient><reason>…</reason></rejected>` per refused
 * recipient. A client that reads only `<reference>`, `<status>` and the top-level
 * `<recipient>` list sees the documented shape; one that cares can learn what was not sent.
 * A scheduled send ends with `<send_at>` (ISO 8601 UTC); `<status>` stays SUCCESS.
 */
export function xmlSendBody(
  reference: string,
  entries: XmlRecipientEntry[],
  sendAt: string | null = null,
): string {
  const body = xmlSuccessBody(
    reference,
    entries.map((e) => e.recipient),
  );
  const rejected = entries
    .filter((e) => e.status === 'REJECTED')
    .map(
      (e) =>
        `<rejected><recipient>${escapeXmlText(e.recipient)}</recipient>` +
        `<reason>${escapeXmlText(e.reason ?? 'INVALID_NUMBER')}</reason></rejected>`,
    )
    .join('');
  const tail = rejected + (sendAt ? `<send_at>${escapeXmlText(sendAt)}</send_at>` : '');
  if (!tail) return body;
  const close = '</response>';
  return body.slice(0, -close.length) + tail + close;
}
