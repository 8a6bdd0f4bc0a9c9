// The subset of PVE::JSONSchema that API parameters go through, with its exact error texts, so
// a client's handling of a 400 is tested against the wording and ordering PVE really produces.
// Source: pve-api.md A6; [PC] JSONSchema.pm check_prop/check_type/check_object, split_list.
import { isIP } from 'node:net';

import { bareTable } from './narrow';
import { NETWORK_FORMATS } from './network-formats';

export type Format =
  | 'pve-configid'
  | 'pve-configid-list'
  | 'address'
  | 'graphite-path'
  | 'pve-node'
  | 'pve-iface'
  | 'pve-iface-list'
  | 'pve-vlan-id-or-range'
  | 'pve-vlan-id-or-range-list'
  | 'ipv4'
  | 'ipv6'
  | 'ipv4mask'
  | 'CIDRv4'
  | 'CIDRv6';

export interface PropSchema {
  readonly type: 'string' | 'integer' | 'boolean';
  readonly optional?: boolean;
  readonly format?: Format;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly enum?: readonly string[];
  /** Another property this one needs (JSONSchema `requires`). */
  readonly requires?: string;
}

/** An object schema with `additionalProperties => 0`, the only kind API methods here use. */
export type ObjectSchema = Readonly<Record<string, PropSchema>>;

/** A parameter as received: form values are strings, JSON bodies may add booleans and objects. */
export type RawValue = string | boolean | object;

/** A parameter after validation: integers and booleans become numbers, as check_value does. */
export type Value = string | number;

/** split_list: a NUL-separated list, else items separated by `,` `;` or whitespace. */
export const splitList = (text: string): string[] => {
  if (text.includes('\0')) return text.split('\0');
  return text
    .replace(/[,;]/g, ' ')
    .trim()
    .split(/\s+/)
    .filter((item) => item !== '');
};

const LABEL = '([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)';
const DOTTED = new RegExp(`^(${LABEL}\\.)*${LABEL}$`);

// Each verifier returns PVE's die text (with its newline) or undefined when the value is valid.
const verifyConfigId = (id: string): string | undefined =>
  /^[a-z][a-z0-9_-]+$/i.test(id) ? undefined : `invalid configuration ID '${id}'\n`;

const FORMATS: Record<Format, (value: string) => string | undefined> = {
  ...NETWORK_FORMATS,
  'pve-iface-list': (value) => splitList(value).map(NETWORK_FORMATS['pve-iface']).find(Boolean),
  'pve-vlan-id-or-range-list': (value) => splitList(value).map(NETWORK_FORMATS['pve-vlan-id-or-range']).find(Boolean),
  'pve-configid': verifyConfigId,
  'pve-configid-list': (value) => splitList(value).map(verifyConfigId).find(Boolean),
  address: (value) =>
    isIP(value) !== 0 || DOTTED.test(value) ? undefined : `value does not look like a valid address: ${value}\n`,
  'graphite-path': (value) => (DOTTED.test(value) ? undefined : 'value does not look like a valid graphite path\n'),
};

// Perl reports a decoded JSON boolean by its class and a nested structure by its ref type.
const refName = (value: RawValue): string =>
  typeof value === 'boolean' ? 'JSON::PP::Boolean' : Array.isArray(value) ? 'ARRAY' : 'HASH';

const checkType = (schema: PropSchema, value: RawValue): string | undefined => {
  if (typeof value === 'boolean' && schema.type === 'boolean') return undefined;
  if (typeof value !== 'string') {
    return `type check ('${schema.type}') failed - got ${refName(value)}`;
  }
  if (schema.type === 'boolean' && value !== '0' && value !== '1') {
    return `type check ('boolean') failed - got '${value}'`;
  }
  if (schema.type === 'integer' && !/^[+-]?\d+$/.test(value)) {
    return `type check ('integer') failed - got '${value}'`;
  }
  return undefined;
};

const isNumber = (value: string): boolean => /^[+-]?(\d+\.\d+|\d+\.|\.\d+|\d+)([eE][+-]?\d+)?$/.test(value);

/** check_prop for one present value: type, format, maxLength, maximum, minimum, enum, in order. */
const checkValue = (schema: PropSchema, raw: RawValue): string | undefined => {
  const typeError = checkType(schema, raw);
  if (typeError !== undefined || typeof raw !== 'string') return typeError;
  const formatError = schema.format && FORMATS[schema.format](raw);
  if (formatError) return `invalid format - ${formatError}`;
  if (schema.maxLength !== undefined && raw.length > schema.maxLength) {
    return `value may only be ${schema.maxLength} characters long`;
  }
  if (schema.minLength !== undefined && raw.length < schema.minLength) {
    return `value must be at least ${schema.minLength} characters long`;
  }
  if (isNumber(raw) && schema.maximum !== undefined && Number(raw) > schema.maximum) {
    return `value must have a maximum value of ${schema.maximum}`;
  }
  if (isNumber(raw) && schema.minimum !== undefined && Number(raw) < schema.minimum) {
    return `value must have a minimum value of ${schema.minimum}`;
  }
  if (schema.enum && !schema.enum.includes(raw)) {
    return `value '${raw}' does not have a value in the enumeration '${schema.enum.join(', ')}'`;
  }
  return undefined;
};

const normalize = (schema: PropSchema, raw: RawValue): Value => {
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  return schema.type === 'string' ? String(raw) : Number(raw);
};

export type Verdict =
  | { readonly ok: true; readonly values: Record<string, Value> }
  | { readonly ok: false; readonly errors: Record<string, string> };

/**
 * check_object with `additionalProperties => 0`: every schema property first (missing or
 * invalid), then every parameter the schema does not define. All errors are collected.
 */
export const verifyParams = (schema: ObjectSchema, params: Record<string, RawValue>): Verdict => {
  // Null-prototype: a parameter called `__proto__` must land in `errors` as a plain key.
  const errors = bareTable<string>();
  const values = bareTable<Value>();
  for (const [name, prop] of Object.entries(schema)) {
    const raw = params[name];
    if (raw === undefined) {
      if (!prop.optional) errors[name] = 'property is missing and it is not optional';
      continue;
    }
    const error = checkValue(prop, raw);
    if (error !== undefined) errors[name] = error;
    else values[name] = normalize(prop, raw);
  }
  for (const [name, prop] of Object.entries(schema)) {
    if (prop.requires !== undefined && params[name] !== undefined && params[prop.requires] === undefined) {
      errors[prop.requires] = `missing property required by '${name}'`;
    }
  }
  for (const name of Object.keys(params)) {
    if (!Object.hasOwn(schema, name)) {
      errors[name] = 'property is not defined in schema and the schema does not allow additional properties';
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  // Keep the caller's parameter order: per-type checks report the first offender in that order.
  const ordered = Object.keys(params).flatMap((name): Array<[string, Value]> => {
    const value = values[name];
    return value === undefined ? [] : [[name, value]];
  });
  return { ok: true, values: Object.fromEntries(ordered) };
};
