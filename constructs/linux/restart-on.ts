/**
 * restartOn's digest where a string in it is a Terraform value. The kind's digest (unit-control.ts) is taken at
 * synth, over cdktf's placeholder for the value, so a variable set to `one` or `two` made one digest and never
 * restarted anything; here Terraform takes the sha256 of the values it substitutes, so the digest moves with them.
 */
import { sha256Hex } from '../../src/core/canonical';
import { Fn, Token } from '../core/cdk';
import type { TerraformValue } from '../../src/core/definition';
import { hasToken } from '../core/encode';
import { textPieces } from './unit-content';

/** restartOn as a construct takes it: a list (its strings may hold values), or a Terraform value given whole. */
type RestartOn = readonly string[] | TerraformValue;

/**
 * `text` as Terraform's join of its pieces, known text and values apart: cdktf warns of escape sequences when a
 * function's argument holds a value inside known text. Terraform reads `%{` in a literal as a directive.
 */
const joined = (text: string): string => {
  const pieces = textPieces(text).filter((piece) => piece !== '');
  if (pieces.length === 1) return text;
  return Fn.join(
    '',
    pieces.map((piece) => (hasToken(piece) ? piece : escapeDirective(piece))),
  );
};

/** Known text as a Terraform literal: `%{` would start a directive (cdktf escapes `${` itself). */
const escapeDirective = (text: string): string => text.replace(/%\{/g, '%%{');

/** `spec` with its restartOn digested by Terraform when `restartOn`, or one of its strings, is a Terraform value. */
export const withRestartOn = <S extends { readonly restartOn: string }>(spec: S, restartOn: RestartOn): S => {
  if (!isKnownList(restartOn)) return { ...spec, restartOn: Fn.sha256(Fn.jsonencode(restartOn)) };
  if (!hasToken(restartOn)) return spec;
  const items = restartOn.map((item) => (hasToken(item) ? joined(item) : escapeDirective(item)));
  return { ...spec, restartOn: Fn.sha256(Fn.jsonencode(items)) };
};

/** Whether the list is one known at synth (its items may still hold values): not a Terraform value given whole. */
const isKnownList = (list: RestartOn): list is readonly string[] => Array.isArray(list) && !Token.isUnresolved(list);

/** `list` with `item` after it: Terraform's concat where the list is a Terraform value given whole. */
export const appended = (list: RestartOn, item: string): RestartOn =>
  isKnownList(list) ? [...list, item] : Fn.concat([list, [item]]);

/** A template's content digest among its instances' restartOn: Terraform's where the content holds a value. */
export const templateDigest = (text: string): string => (hasToken(text) ? Fn.sha256(joined(text)) : sha256Hex(text));
