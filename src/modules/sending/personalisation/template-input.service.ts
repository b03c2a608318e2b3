import { Injectable } from '@nestjs/common';
import { AppException } from '../../../platform/errors/app.exception.js';
import { sideOf, type AuthContext } from '../../api-keys/auth/auth-context.js';
import type { Channel } from '../../messages/channel.js';
import { TemplatesService } from '../../templates/templates.service.js';
import type { SendInput } from '../channel-policy.js';
import { withFields } from '../../../platform/objects/with-fields.js';

/** Puts a stored template's text into a send that names `template_id`. */
@Injectable()
export class TemplateInput {
  constructor(private readonly templates: TemplatesService) {}

  async apply(auth: AuthContext, channel: Channel, input: SendInput): Promise<SendInput> {
    if (!input.templateId) return input;
    const t = await this.templates.lookup(sideOf(auth), input.templateId);
    if (!t) {
      throw AppException.validation(
        [
          {
            field: 'template_id',
            message: 'no template with this id for this key (live and test keys have their own templates)',
          },
        ],
        'The template does not exist.',
      );
    }
    if (t.channel !== channel) {
      throw AppException.validation(
        [{ field: 'template_id', message: `is a ${t.channel} template; this is a ${channel} send` }],
        'The template is for another channel.',
      );
    }
    // An e-mail send may give its own subject; otherwise the template's.
    const subject = channel === 'email' ? (input.subject ?? t.subject) : input.subject;
    if (channel === 'email' && !subject) {
      throw AppException.validation([
        { field: 'subject', message: 'subject is required: the template has none' },
      ]);
    }
    return withFields(input, { body: t.body, subject });
  }
}
