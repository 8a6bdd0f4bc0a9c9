/**
 * A field PVE keeps under its own parameter name that only some types have (a metric server's plugin, an
 * interface's type): declared in a kind's fields with the types that have it and how a read writes its value,
 * carried in the spec's `options` group under the parameter. One helper for both PVE kinds' declarations.
 */
import { optional } from '../core/fields';
import type { Rule } from '../core/rules';

/** The option builder of a kind whose types are `K` and whose reads write values in the forms `F`. */
export const optionsFor =
  <K extends string, F extends string>() =>
  <const T extends readonly K[], R extends Rule>(param: string, types: T, rule: R, form: F) =>
    optional({ rule, types, form, spec: { group: 'options', key: param } });
