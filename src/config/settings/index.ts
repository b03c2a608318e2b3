import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Setting, ValueOf } from './define.js';
import { deliverySettings } from './delivery.js';
import { limitSettings } from './limits.js';
import { retentionSettings } from './retention.js';
import { securitySettings } from './security.js';
import { serverSettings } from './server.js';
import { transportSettings } from './transports.js';

/**
 * Every setting the service reads, by area. A setting is added here, in its area's file, once:
 * validation, its default, the configuration page and the `.env` examples follow from it.
 */
export const SETTING_AREAS = [
  { title: 'Server, databases, Redis and logs', settings: serverSettings },
  { title: 'Transports and providers', settings: transportSettings },
  { title: 'Delivery, queues and callbacks', settings: deliverySettings },
  { title: 'Limits per account', settings: limitSettings },
  { title: 'HTTP hardening and authentication', settings: securitySettings },
  { title: 'Retention', settings: retentionSettings },
] as const;

export const SETTINGS = {
  ...serverSettings,
  ...transportSettings,
  ...deliverySettings,
  ...limitSettings,
  ...securitySettings,
  ...retentionSettings,
};

export type SettingName = keyof typeof SETTINGS;

/** The environment as read: each setting checked, converted and defaulted. */
export type Settings = { [K in SettingName]: ValueOf<(typeof SETTINGS)[K]> };

/** The class class-validator checks: one property per setting, carrying that setting's rules. */
class EnvSchema {}
for (const [name, setting] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
  // Decorators listed on a property run bottom-up; applying the rules in that order keeps the
  // constraints, and so the error text, in the order a decorated class reports them.
  for (const rule of [...setting.rules].reverse()) rule(EnvSchema.prototype, name);
}

/**
 * Checks the raw environment against every setting. Returns the settings, or one problem per bad
 * variable (`NAME="value": what it must be`).
 */
export function parseSettings(
  raw: Record<string, string | undefined>,
): { settings: Settings; problems?: undefined } | { settings?: undefined; problems: string[] } {
  const env = plainToInstance(EnvSchema, raw) as Record<string, unknown>;
  const errors = validateSync(env, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0)
    return {
      problems: errors.map(
        (e) =>
          `${e.property}=${JSON.stringify(raw[e.property] ?? '')}: ${Object.values(e.constraints ?? {}).join('; ')}`,
      ),
    };
  const settings: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS) as Array<[string, Setting]>)
    settings[name] = env[name] ?? (setting.fallback ? env[setting.fallback] : undefined) ?? setting.default;
  return { settings: settings as Settings };
}
