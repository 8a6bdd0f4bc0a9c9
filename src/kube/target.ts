/**
 * How a handler reaches a Kubernetes cluster, declared once (KUBE_CLUSTER_FIELDS): each prop of a `KubeCluster`
 * with its doc comment, rule and default, from which come the props type, the plain-data target it synthesizes (a
 * kubeconfig path and context, or in-cluster) and the handler boundary's schema. Paths and names only: no credential
 * in a stack. A read (plan) takes the read context or kubeconfig when one is named, so it never opens the write
 * identity's credentials.
 */
import * as z from 'zod/mini';
import type { Known } from '../core/definition';
import { optional, propTableOf, required, specSchema } from '../core/fields';
import type { Role } from '../core/kind';
import { boolean, broken, integer, type Problem, text } from '../core/rules';
import { targetOf, type WrittenOf } from '../core/target-fields';
import { nodeKubeconfigIo, type KubeconfigIo, type KubeConnection } from './connection';
import { inClusterConnection } from './in-cluster';
import { loadKubeconfig } from './kubeconfig';

const path = text('a path', /^[^\n\r\0]+$/, 4096);
const contextName = text('a context name', /^[^\n\r\0]+$/, 253);

/** A KubeCluster's one declaration: each prop with its doc comment, rule and default, and the target it writes. */
export const KUBE_CLUSTER_FIELDS = {
  /** The cluster's name in messages: the construct's id. */
  name: required({ rule: text('a cluster name', /^[^\n\r\0]+$/, 253), spec: true, prop: false }),
  /**
   * Path of the kubeconfig, `~` expanded when a handler runs.
   *
   * @default - KUBECONFIG (several files merged as kubectl does), else ~/.kube/config
   */
  kubeconfig: optional({ rule: path, spec: true }),
  /** The context to use. @default - the kubeconfig's current-context */
  context: optional({ rule: contextName, spec: true }),
  /**
   * Path of the kubeconfig of plans and reads, `~` expanded when a handler runs: a read-only identity, so a plan (in a
   * pull request's pipeline, say) never opens the write identity's credentials.
   *
   * @default - kubeconfig
   */
  readKubeconfig: optional({ rule: path, spec: true }),
  /**
   * The context of plans and reads (a read-only identity); applies and destroys use `context`.
   *
   * @default - context, or readKubeconfig's current-context when that is given
   */
  readContext: optional({ rule: contextName, spec: true }),
  /** Use the service account of the pod Terraform runs in, instead of a kubeconfig. @default false */
  inCluster: optional({ rule: boolean, spec: true }),
  /** How long one API request may take. */
  // Not written at synth: the handler boundary fills it in, and no earlier target carried it.
  timeoutSeconds: optional({ rule: integer(1, 3600), default: 30, written: false, spec: true }),
};

/** Every prop of `KubeCluster`: the target's fields besides its name. */
export const KUBE_CLUSTER_PROPS = propTableOf(KUBE_CLUSTER_FIELDS);

/** The rule across props: the pod Terraform runs in has a service account, not a kubeconfig. */
export const kubeClusterRules = (props: Readonly<Record<string, unknown>>): Problem[] =>
  props.inCluster !== true
    ? []
    : (['kubeconfig', 'context', 'readKubeconfig', 'readContext'] as const)
        .filter((prop) => props[prop] !== undefined)
        .map((prop) => broken(prop, 'left unset when inCluster is true (the pod has no kubeconfig)', props[prop]));

/** The target a KubeCluster writes: paths and names, no credential. */
export type KubeTarget = WrittenOf<typeof KUBE_CLUSTER_FIELDS>;

/** The target `props` make (`targetOf`): `known` says which values synth knows (not a Terraform value). */
export const kubeTargetOf = (props: object, known?: Known): KubeTarget =>
  targetOf(KUBE_CLUSTER_FIELDS, 'a KubeCluster', props, known);

/** The target a handler gets, judged by the declaration's rules, with its defaults filled in. */
export const kubeTargetSchema = specSchema(KUBE_CLUSTER_FIELDS, 'a Kubernetes target', kubeClusterRules);

/** A target as a handler connects with it: its defaults filled in (`kubeTargetSchema`). */
export type KubeTargetWithDefaults = z.output<typeof kubeTargetSchema>;

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
