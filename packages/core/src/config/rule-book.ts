import { ConfigError, passes, problemOf, show, unknownKey, type Rule } from './validate.js';

/** How a small config (the Vivaldi client's, the queries') is checked and resolved. */
export interface RuleBook<T extends object> {
  /**
   * Every problem with `config` (one message per field, naming the field, the constraint and the
   * value), or [] if it is valid. Never throws, whatever the input.
   */
  validate(config: T): string[];
  /**
   * The defaults with `overrides` on top, validated. Keys whose value is `undefined` are ignored;
   * unknown keys (typos) and a non-object `overrides` are problems too. Returns a fresh, frozen
   * config; throws a ConfigError listing every problem at once.
   */
  resolve(overrides?: Partial<T>): T;
}

/** A config checked field by field with the SWIM config's rules (validate.ts); `subject` names it in messages. */
export function ruleBook<T extends object>(subject: string, rules: { readonly [K in keyof T]-?: Rule }, defaults: T): RuleBook<T> {
  const fields = Object.keys(rules) as unknown as readonly (keyof T & string)[];
  const validate = (config: T): string[] => {
    if (typeof config !== 'object' || config === null || Array.isArray(config)) return [`${subject} must be an object, got ${show(config)}`];
    const values = config as unknown as Readonly<Record<string, unknown>>;
    const problems: string[] = [];
    for (const field of fields) {
      const rule = rules[field] as Rule;
      if (!passes(rule, values[field])) problems.push(problemOf(field, rule, values[field]));
    }
    return problems;
  };
  const resolve = (overrides?: Partial<T>): T => {
    const problems: string[] = [];
    const picked: Record<string, unknown> = {};
    if (typeof overrides === 'object' && overrides !== null && !Array.isArray(overrides)) {
      for (const [key, value] of Object.entries(overrides)) {
        if (!Object.hasOwn(rules, key)) problems.push(unknownKey(key, fields));
        else if (value !== undefined) picked[key] = value;
      }
    } else if (overrides !== undefined) {
      problems.push(`${subject} overrides must be an object, got ${show(overrides)}`);
    }
    const config = Object.freeze({ ...defaults, ...picked }) as T;
    problems.push(...validate(config));
    if (problems.length > 0) throw new ConfigError(problems, subject);
    return config;
  };
  return { validate, resolve };
}
