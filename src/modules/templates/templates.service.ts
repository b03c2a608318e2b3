import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import type { Channel } from '../messages/channel.js';
import { placeholderNames } from '../messages/placeholders.js';
import { randomUUID } from 'node:crypto';
import { checkTemplate } from './template-rules.js';

/** A template's fields as a body gives them (TemplateBodyDto), checked by checkTemplate. */
type TemplateInput = Parameters<typeof checkTemplate>[0];
import { TemplateNameTaken, TemplateStore, type TemplateOwner, type TemplateRow } from './template.store.js';

export interface TemplateView {
  template_id: string;
  name: string;
  channel: Channel;
  subject: string | null;
  body: string;
  /** The `{{name}}` placeholders of body and subject, in order of first use. */
  placeholders: string[];
  created_at: string;
  updated_at: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function templateView(t: TemplateRow): TemplateView {
  return {
    template_id: t.id,
    name: t.name,
    channel: t.channel,
    subject: t.subject,
    body: t.body,
    placeholders: placeholderNames(`${t.subject ?? ''}\n${t.body}`),
    created_at: new Date(t.created_at).toISOString(),
    updated_at: new Date(t.updated_at).toISOString(),
  };
}

function notFound(id: string): AppException {
  return new AppException('NOT_FOUND', `No template ${JSON.stringify(id)} for this key.`, [
    { field: 'template_id', message: 'no such template' },
  ]);
}

function nameTaken(name: string): AppException {
  return new AppException(
    'DUPLICATE_TEMPLATE_NAME',
    `A template named ${JSON.stringify(name)} already exists.`,
    [{ field: 'name', message: 'already used by another template of this account' }],
  );
}

/**
 * An account's message templates, kept apart per side (live keys and test keys each have their
 * own): create, read, replace, delete (and the lookup sends use).
 */
@Injectable()
export class TemplatesService {
  constructor(
    private readonly store: TemplateStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `familyId`: the owner's family root (familyRoot), whose sub-accounts' templates count with its own. */
  async create(owner: TemplateOwner, raw: TemplateInput, familyId = owner.accountId): Promise<TemplateView> {
    const fields = checkTemplate(raw);
    // A bound on what one tenant (a parent with its sub-accounts) keeps, and what a list costs every process.
    const max = this.config.templatesPerAccount;
    if ((await this.store.countFamily(familyId, owner.testMode)) >= max)
      throw new AppException(
        'FORBIDDEN',
        `This account already keeps ${max} templates with its parent or sub-accounts, the most it may (TEMPLATES_PER_ACCOUNT); delete one first.`,
      );
    const id = randomUUID();
    try {
      await this.store.insert(owner, id, fields, new Date());
    } catch (err) {
      if (err instanceof TemplateNameTaken) throw nameTaken(fields.name);
      throw err;
    }
    return this.get(owner, id);
  }

  /** A template of the account's side as a send uses it, or undefined (unknown id, another account's or side's). */
  async lookup(owner: TemplateOwner, id: string): Promise<TemplateRow | undefined> {
    return UUID.test(id) ? this.store.find(owner, id.toLowerCase()) : undefined;
  }

  async get(owner: TemplateOwner, id: string): Promise<TemplateView> {
    const row = UUID.test(id) ? await this.store.find(owner, id.toLowerCase()) : undefined;
    if (!row) throw notFound(id);
    return templateView(row);
  }

  async list(owner: TemplateOwner, channel: Channel | null, page: number, perPage: number) {
    const [rows, total] = await Promise.all([
      this.store.list(owner, channel, perPage, (page - 1) * perPage),
      this.store.count(owner, channel),
    ]);
    return { templates: rows.map(templateView), page, per_page: perPage, total };
  }

  async replace(owner: TemplateOwner, id: string, raw: TemplateInput): Promise<TemplateView> {
    if (!UUID.test(id)) throw notFound(id);
    const fields = checkTemplate(raw);
    let found: boolean;
    try {
      found = await this.store.update(owner, id.toLowerCase(), fields, new Date());
    } catch (err) {
      if (err instanceof TemplateNameTaken) throw nameTaken(fields.name);
      throw err;
    }
    if (!found) throw notFound(id);
    return this.get(owner, id);
  }

  async remove(owner: TemplateOwner, id: string): Promise<{ template_id: string; deleted: true }> {
    if (!UUID.test(id) || !(await this.store.delete(owner, id.toLowerCase()))) throw notFound(id);
    return { template_id: id.toLowerCase(), deleted: true };
  }
}
