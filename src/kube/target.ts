/**
 * How a handler reaches a Kubernetes cluster: the props of a `KubeCluster` with their rules and defaults, and the
 * plain-data target it synthesizes (a kubeconfig path and context, or in-cluster), judged again by the same rules at
 * the handler boundary. Paths and names only: no credential in a stack. A read (plan) takes the read context or
 * kubeconfig when one is named, so it never opens the write identity's credentials.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck, withDefaults } from '../core/definition';
import type { Role } from '../core/kind';
import { boolean, broken, integer, type Problem, text } from '../core/rules';
import { nodeKubeconfigIo, type KubeconfigIo, type KubeConnection } from './connection';
import { inClusterConnection } from './in-cluster';
import { loadKubeconfig } from './kubeconfig';

export interface KubeTarget {
  /** The cluster's name in messages (the construct's id). */
  readonly name: string;
  /** A kubeconfig path, `~` expanded at run time; absent = KUBECONFIG, else ~/.kube/config. */
  readonly kubeconfig?: string;
  /** Absent = the kubeconfig's current-context. */
  readonly context?: string;
  /** The kubeconfig of plans and reads; absent = `kubeconfig`. */
  readonly readKubeconfig?: string;
  /** The context of plans and reads; absent = `context`, or the read kubeconfig's current-context. */
  readonly readContext?: string;
  /** The service account of the pod the handler runs in. */
  readonly inCluster?: boolean;
  /** How long one request may take. */
  readonly timeoutSeconds?: number;
}

/** Every prop of `KubeCluster`: the target's fields besides its name. */
export const KUBE_CLUSTER_PROPS = {
  kubeconfig: { rule: text('a path', /^[^\n\r\0]+$/, 4096) },
  context: { rule: text('a context name', /^[^\n\r\0]+$/, 253) },
  readKubeconfig: { rule: text('a path', /^[^\n\r\0]+$/, 4096) },
  readContext: { rule: text('a context name', /^[^\n\r\0]+$/, 253) },
  inCluster: { rule: boolean },
  timeoutSeconds: { rule: integer(1, 3600), default: 30 },
} as const satisfies PropTable;

/** The rule across props: the pod Terraform runs in has a service account, not a kubeconfig. */
export const kubeClusterRules = (props: Readonly<Record<string, unknown>>): Problem[] =>
  props.inCluster !== true
    ? []
    : (['kubeconfig', 'context', 'readKubeconfig', 'readContext'] as const)
        .filter((prop) => props[prop] !== undefined)
        .map((prop) => broken(prop, 'left unset when inCluster is true (the pod has no kubeconfig)', props[prop]));

const TARGET_FIELDS: PropTable = {
  name: { rule: text('a cluster name', /^[^\n\r\0]+$/, 253), required: true },
  ...KUBE_CLUSTER_PROPS,
};

/** A target as a handler connects with it: its defaults applied (the one place they are). */
export type KubeTargetWithDefaults = KubeTarget & { readonly timeoutSeconds: number };

/** The target a handler gets, judged by the props' rules, with its defaults applied. */
export const kubeTargetSchema = z.pipe(
  z
    .object({
      name: z.string(),
      kubeconfig: z.optional(z.string()),
      context: z.optional(z.string()),
      readKubeconfig: z.optional(z.string()),
      readContext: z.optional(z.string()),
      inCluster: z.optional(z.boolean()),
      timeoutSeconds: z.optional(z.number()),
    })
    .check(
      specCheck((target: Readonly<Record<string, unknown>>) => [
        ...propProblems('a Kubernetes target', TARGET_FIELDS, target),
        ...kubeClusterRules(target),
      ]),
    ),
  z.transform((target: KubeTarget) => withDefaults(KUBE_CLUSTER_PROPS, target)),
);

/**
 * The target as one role connects with it: a read takes the read kubeconfig and context when given
 * (a read kubeconfig alone brings its own current-context), so a plan never opens the write
 * identity's credentials; a write takes `kubeconfig` and `context`.
 */
export const targetFor = (target: KubeTarget, role: Role): KubeTarget => {
  const { readKubeconfig, readContext, ...write } = target;
  if (role === 'write' || (readKubeconfig === undefined && readContext === undefined)) return write;
  const { kubeconfig, context, ...rest } = write;
  const file = readKubeconfig ?? kubeconfig;
  const name = readContext ?? (readKubeconfig === undefined ? context : undefined);
  return {
    ...rest,
    ...(file === undefined ? {} : { kubeconfig: file }),
    ...(name === undefined ? {} : { context: name }),
  };
};

/** The connection a target (parsed by `kubeTargetSchema`) resolves to when a handler runs. */
export const connectionOf = (target: KubeTarget, io: KubeconfigIo = nodeKubeconfigIo()): KubeConnection =>
  target.inCluster ? inClusterConnection(io) : loadKubeconfig(target, io);
