/**
 * What a managed object and its retirement must agree on: the Terraform addresses of its
 * resources, what its lifecycle stores and the destroy hook, so a retired object is removed by
 * the very hook it was created with.
 */
import type { Construct } from 'constructs';
import { KIND_NAME } from '../../src/core/object-record';
import { ENV } from '../../src/core/protocol';
import { broken } from '../../src/core/rules';
import { TerraformStack } from './cdk';
import type { HookHandler } from './handler-asset';
import { hasToken, jsonText } from './encode';
import { appProblems, recordProblems } from './problems';

/** `scope`'s path below the stack as a Terraform identifier: `site/influx` → `site_influx`. */
export const addressName = (scope: Construct): string => {
  const stack = TerraformStack.of(scope);
  const below = scope.node.scopes.slice(stack.node.scopes.length).map((c) => c.node.id);
  const joined = below.join('_').replace(/[^A-Za-z0-9_-]/g, '_');
  return /^[A-Za-z_]/.test(joined) ? joined : `_${joined}`;
};

const claimed = new WeakMap<TerraformStack, Set<string>>();

/**
 * Reserves an address prefix in the stack. Two objects under one prefix would merge into one
 * Terraform resource without any error, so the second is one of the app's problems, and so is a
 * prefix Terraform would not take; either fails the synth (problems.ts).
 */
export const claimName = (scope: Construct, name: string): string => {
  const stack = TerraformStack.of(scope);
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
    const rule = 'a Terraform identifier (a letter or _, then letters, digits, _ or -)';
    recordProblems(scope, [broken('name', rule, name)]);
  }
  // The record and the read's answer are JSON objects keyed by name: JavaScript reads a key `__proto__`
  // as the object's prototype (a record parse drops it), so the object would leave the record unseen.
  if (name === '__proto__') recordProblems(scope, [broken('name', 'anything but __proto__', name)]);
  const names = claimed.get(stack) ?? new Set<string>();
  claimed.set(stack, names);
  if (names.has(name)) {
    const says = `must be unique among the stack's objects, got "${name}" a second time`;
    recordProblems(scope, [{ prop: 'name', says: `${says} (rename one construct or set name)` }]);
  }
  names.add(name);
  return name;
};

/**
 * The lifecycle's input: the identity and the label of the target, whose settings sit in the destroy
 * hook once instead of in the state once per object. Settings that hold a Terraform value are stored
 * whole: a destroy hook may reference nothing but `self`.
 */
export const lifecycleInput = (identity: object, target: object, label: string): string =>
  jsonText({ identity, target: hasToken(target) ? target : label });

/**
 * The input of a lifecycle that keeps ownership in the state: what the read found (`found`, a template;
 * ownership.ts), a newline, and its `lifecycleInput` text. One string, not the object `{object, found}` that
 * 0.2.0 stored: Terraform stores a dynamic value's type beside it, in `input` and again in `output`, and
 * writes the whole state after each resource an apply or destroy changes, so the object cost about 430
 * bytes of state a lifecycle more (measured: 1000 metric servers' state 2.00 MB against 1.56 MB;
 * bench/HISTORY.md, Applies and destroys). Found first: OpenTofu 1.12 shows a string that starts with a
 * JSON value as `jsonencode(<that value>)` and drops the rest (measured), so a found text after the object
 * would vanish from its plans. The JSON text holds no newline: `jsonText` escapes them, `jsonencode` too.
 */
export const recordedInput = (object: string, found: string): string => `${found}\n${object}`;

/**
 * What the lifecycle at `address` recorded it found, as an HCL expression, whichever form its input has:
 * the text before its last newline (`recordedInput`; the JSON text has none), 0.2.0's `found`, or "" for an
 * input without one (0.1.0's text, or the object before it): the stored input is kept as created
 * (`ignore_changes`).
 */
export const recordedFound = (address: string): string =>
  `try(regex("(?s)^(.*)\\n", ${address}.input)[0], ${address}.input.found, "")`;

/**
 * A domain and a kind name a bundle's asset and travel to the handler; a kind of one's own is held to
 * the rule every built-in one meets, so the record can keep it and a hook can pass it as data. Without
 * them no bundle can be found, so the object cannot be built: the app's problems are thrown here.
 */
export const requireHandlerNames = (scope: Construct, domain: unknown, kind: unknown): void => {
  const rule = 'a-z, then a-z, 0-9 and -';
  const problems = [
    ...(typeof domain === 'string' && KIND_NAME.test(domain) ? [] : [broken('domain', rule, domain)]),
    ...(typeof kind === 'string' && KIND_NAME.test(kind) ? [] : [broken('kind', rule, kind)]),
  ];
  if (problems.length > 0) throw appProblems(scope, problems);
};

/**
 * A hook's command: fixed text. The kind reaches the handler's argv through the shell's own expansion of
 * a quoted variable, so no value (the record's, a construct's) is ever parsed as shell text (issue 27).
 */
export const hookCommand = (handlerPath: string, verb: 'apply' | 'destroy'): string =>
  `node "${handlerPath}" "$${ENV.kind}" ${verb}`;

/**
 * A destroy hook's program: the sh hook run by `sh` itself, with the bundle and the domain's name (a-z, 0-9 and -,
 * checked by requireHandlerNames), all fixed text; the object's values stay in the environment. Run so, not through
 * `/bin/sh -c`, a hook is one shell start less (0.9 ms of the 10 a hook that took its outcome cost, measured
 * 2026-12-07). The sh hook hands the object to the domain's running leader, and runs `hookCommand(bundle, 'destroy')`
 * where there is none.
 */
export const destroyInterpreter = ({ script, bundle, domain }: HookHandler): string[] => ['sh', script, bundle, domain];

/**
 * The local-exec destroy hook: the stored input and the target's settings (lifecycle-input.ts reads
 * them); none when they hold a Terraform value (`undefined`), which the input holds.
 * `stack` names the stack whose marks the destroy may act on (stack-id.ts).
 * `adopt` comes from the configuration at destroy, not the state: a lifecycle that keeps ownership
 * keeps its input as created (ownership.ts), so only the hook can carry a later `adopt: true`; a kind
 * marked on its target removes an object without its mark only when the hook says adopt (issue 27).
 * `declared`, the object's names and destroy settings as the configuration has them, comes from it too
 * (declared-identity.ts). `object`, the lifecycle's name, is where a teardown that listed the object leaves its
 * outcome.
 */
export const destroyHook = (
  handler: HookHandler,
  kind: string,
  target: object | undefined,
  label: string,
  {
    adopt = false,
    stack,
    declared,
    object,
  }: { readonly adopt?: boolean; readonly stack: string; readonly declared?: object; readonly object?: string },
) => ({
  when: 'destroy' as const,
  interpreter: destroyInterpreter(handler),
  command: 'destroy',
  environment: {
    [ENV.kind]: kind,
    [ENV.stack]: stack,
    [ENV.lifecycle]: '${jsonencode(self.input)}',
    ...(target === undefined || hasToken(target) ? {} : { [ENV.target]: jsonText(target), [ENV.targetLabel]: label }),
    ...(adopt ? { [ENV.adopt]: 'true' } : {}),
    ...(declared === undefined ? {} : { [ENV.declared]: jsonText(declared) }),
    ...(object === undefined ? {} : { [ENV.object]: object }),
  },
});
