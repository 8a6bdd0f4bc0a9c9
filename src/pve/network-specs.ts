/**
 * The specs and identities the two network kinds synthesize, re-checked at the handler boundary
 * with the same rules the constructs apply at synth, so a hand-written or tampered spec fails
 * naming the field instead of staging a file that ifreload refuses or that drifts forever.
 */
import * as z from 'zod/mini';
import { IFACE_NAME, IFACE_RULE, INTERFACE_TYPES, NETWORK_FIELDS, fieldsOf } from './network-fields';
import { interfaceProblems } from './network-rules';
import { NODE_NAME } from './upid';

const node = z.string().check(z.regex(NODE_NAME, 'a PVE node name (letters, digits, inner -)'));
const iface = z.string().check(z.regex(IFACE_NAME, IFACE_RULE));
const type = z.enum(INTERFACE_TYPES);

/** A declared field's value as the spec carries it: flags, numbers, text, sorted name lists. */
const value = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

/** The construct's props back from a spec's options, so the synth rules can judge them again. */
const propsOf = (options: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(
    NETWORK_FIELDS.filter((field) => options[field.param] !== undefined).map((f) => [f.prop, options[f.param]]),
  );

const paramOf = (prop: string): string => NETWORK_FIELDS.find((field) => field.prop === prop)?.param ?? prop;

/** What a `ProxmoxNetworkInterface` synthesizes: identity plus declared fields by PVE name. */
export const networkInterfaceSpec = z.object({ node, iface, type, options: z.record(z.string(), value) }).check(
  z.superRefine((spec, ctx) => {
    const sent = new Set<string>(fieldsOf(spec.type).map((field) => field.param));
    const unknown = Object.keys(spec.options).find((param) => !sent.has(param));
    if (unknown !== undefined) {
      const message = `not a field a ${spec.type} has (${[...sent].join(', ')})`;
      ctx.issues.push({ code: 'custom', message, input: spec, path: ['options', unknown] });
      return;
    }
    const [problem] = interfaceProblems(spec.node, spec.iface, spec.type, propsOf(spec.options));
    if (problem === undefined) return;
    const named = problem.prop === 'node' || problem.prop === 'iface';
    const path = named ? [problem.prop] : ['options', paramOf(problem.prop)];
    ctx.issues.push({ code: 'custom', message: `must be ${problem.rule}`, input: spec, path });
  }),
);

/** What names an interface: all that destroy gets. The type is in it because PUT cannot change one. */
export const networkInterfaceIdentity = z.object({ node, iface, type });
export type NetworkInterfaceIdentity = z.infer<typeof networkInterfaceIdentity>;

const nodeList = z.array(node).check(
  z.minLength(1),
  z.refine((nodes) => new Set(nodes).size === nodes.length, 'a list of distinct node names'),
);

/** The ceiling of one reload's task wait, and its default (pve-api.md §A4; bpg waits 100 s). */
export const RELOAD_TIMEOUT = { min: 1, max: 3600, default: 30 } as const;

/**
 * What a `ProxmoxNetworkApply` synthesizes: the nodes in reload order, the task wait, and per node
 * the interfaces the stack stages there. Whatever else a node has staged is someone else's, and is
 * reloaded only with `reloadForeignChanges` (a spec written by hand without them declares nothing).
 */
export const networkApplySpec = z.object({
  nodes: nodeList,
  timeoutSeconds: z.number().check(z.int(), z.gte(RELOAD_TIMEOUT.min), z.lte(RELOAD_TIMEOUT.max)),
  interfaces: z.optional(z.record(node, z.array(iface))),
  reloadForeignChanges: z.optional(z.boolean()),
});
export type NetworkApplySpec = z.infer<typeof networkApplySpec>;

/** What names an apply object: its nodes, in order. */
export const networkApplyIdentity = z.object({ nodes: nodeList });
export type NetworkApplyIdentity = z.infer<typeof networkApplyIdentity>;
