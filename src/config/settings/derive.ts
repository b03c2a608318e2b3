import type { Setting } from './define.js';
import { SETTINGS, type SettingName, type Settings } from './index.js';

/** `a.b` with value V → `{ a: { b: V } }`. */
type Nest<P extends string, V> = P extends `${infer H}.${infer R}`
  ? { [K in H]: Nest<R, V> }
  : { [K in P]: V };
type Intersect<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Intersections flattened into plain object types, so editors show `retention` as one object. */
type Flat<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;
/** A setting's place in the configuration: its path, holding `to`'s result (undefined when unset with no default). */
type Entry<S> =
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- T is only matched, O carries the value
  S extends Setting<infer _T, infer D, infer P, infer O>
    ? [P] extends [never]
      ? never
      : Nest<P, undefined extends D ? O | undefined : O>
    : never;

/** The part of the configuration the setting declarations give directly. */
export type DerivedConfig = Flat<Intersect<{ [N in SettingName]: Entry<(typeof SETTINGS)[N]> }[SettingName]>>;

/** Places every setting that declares a path, converted by its `to`. */
export function derive(settings: Settings): DerivedConfig {
  const out: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS) as Array<[SettingName, Setting]>) {
    if (!setting.path) continue;
    const value = settings[name];
    const keys = setting.path.split('.');
    let at = out;
    for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[keys[keys.length - 1]] = value === undefined || !setting.to ? value : setting.to(value);
  }
  return out as DerivedConfig;
}
