// Request parameters as pveproxy collects them (form or JSON body, then the query string on top),
// so the type rules that depend on the encoding (a form `true` is not a boolean) stay visible.
// Source: pve-api.md A6; [HS] AnyEvent.pm extract_params/decode_urlencoded.
import { isRecord } from '../../core/records';
import { bareTable } from './narrow';
import type { RawValue } from './validate';

export type Params = Record<string, RawValue>;

// Null-prototype maps: a parameter named `__proto__` or `constructor` is just a parameter.
const emptyParams = (): Params => bareTable<RawValue>();

// Repeated keys are joined with NUL, as decode_urlencoded does (CGI.pm style).
const addValue = (params: Params, key: string, value: string): void => {
  const old = params[key];
  params[key] = typeof old === 'string' ? `${old}\0${value}` : value;
};

/** application/x-www-form-urlencoded, with `&` or `;` between pairs. */
export const decodeForm = (text: string, into: Params = emptyParams()): Params => {
  for (const pair of text.split(/[&;]/)) {
    if (pair === '') continue;
    const [key, value] = [...new URLSearchParams(pair)][0] ?? [pair, ''];
    addValue(into, key, value);
  }
  return into;
};

/** A JSON object body: numbers become strings, booleans stay booleans, null means "absent". */
const decodeJson = (text: string): Params => {
  const parsed: unknown = JSON.parse(text);
  if (!isRecord(parsed)) throw new SyntaxError('JSON body is not an object');
  const params = emptyParams();
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'number') params[key] = String(value);
    else if (typeof value === 'string' || typeof value === 'boolean') params[key] = value;
    else if (typeof value === 'object' && value !== null) params[key] = value; // an array or object: a 400 later
  }
  return params;
};

const isJson = (contentType: string | undefined): boolean => {
  const [type = ''] = (contentType ?? '').split(';');
  return type.trim().toLowerCase() === 'application/json';
};

/**
 * Body parameters for POST/PUT/DELETE (form unless the content type is JSON), then the query
 * string, which wins on a clash. `_dc` (the GUI's cache buster) is dropped.
 */
export const collectParams = (method: string, contentType: string | undefined, body: string, query: string): Params => {
  const withBody = method === 'POST' || method === 'PUT' || method === 'DELETE';
  let params = emptyParams();
  if (withBody && body.trim() !== '') {
    params = isJson(contentType) ? decodeJson(body) : decodeForm(body);
  }
  const fromQuery = decodeForm(query);
  for (const [key, value] of Object.entries(fromQuery)) params[key] = value;
  delete params._dc;
  return params;
};

/** The log's view of the parameters: every value as a string. */
export const paramsForLog = (params: Params): Record<string, string> => {
  const asString = (value: RawValue): string => {
    if (typeof value === 'string') return value;
    return typeof value === 'boolean' ? String(Number(value)) : JSON.stringify(value);
  };
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, asString(value)]));
};
