import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REQUIRED_ONE_OF, type ChatSendBody, type EmailSendBody, type SmsSendBody } from '../src/index.js';

type Schema = { allOf?: Array<{ anyOf?: Array<{ required: string[] }> }> };
const doc = JSON.parse(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};

describe('the send bodies of the client', () => {
  it("require one field of each of the document's groups, no more and no less", () => {
    for (const [name, groups] of Object.entries(REQUIRED_ONE_OF)) {
      const documented = (doc.components.schemas[name].allOf ?? []).map((g) =>
        (g.anyOf ?? []).flatMap((a) => a.required),
      );
      expect(groups, name).toEqual(documented);
    }
    const withGroups = Object.entries(doc.components.schemas)
      .filter(([, s]) => s.allOf?.some((g) => g.anyOf))
      .map(([name]) => name);
    expect(Object.keys(REQUIRED_ONE_OF).sort()).toEqual(withGroups.sort());
  });

  it('take either name of a field, and a template for the text (checked by tsc)', () => {
    const bodies: unknown[] = [
      { from: 'ACME', to: '260971234567', message: 'Hi' } satisfies SmsSendBody,
      { sender_id: 'ACME', recipient: ['260971234567'], message_body: 'Hi' } satisfies SmsSendBody,
      { from: 'ACME', to: '260971234567', template_id: 'tpl_1' } satisfies SmsSendBody,
      // @ts-expect-error: no text and no template
      { from: 'ACME', to: '260971234567' } satisfies SmsSendBody,
      // @ts-expect-error: no sender
      { to: '260971234567', message: 'Hi' } satisfies SmsSendBody,
      { from: 'a@acme.example', to: 'j@example.com', subject: 'S', email_body: 'B' } satisfies EmailSendBody,
      { from: 'a@acme.example', to: 'j@example.com', template_id: 'tpl_2' } satisfies EmailSendBody,
      // @ts-expect-error: a subject without a body
      { from: 'a@acme.example', to: 'j@example.com', subject: 'S' } satisfies EmailSendBody,
      {
        username: 'u',
        password: 'p',
        senderid: 1,
        recipient: ['260971234567'],
        template_id: 't',
      } satisfies ChatSendBody,
      // @ts-expect-error: no message and no template
      { username: 'u', password: 'p', senderid: 1, recipient: ['260971234567'] } satisfies ChatSendBody,
    ];
    expect(bodies).toHaveLength(10);
  });
});
