/**
 * `cdktf-homelab discover`'s command line, parsed and judged in one place: every target setting by
 * the rules of the target construct that takes it (its props table), secrets only as variable names,
 * and every problem reported at once, so a wrong flag never reaches a server.
 */
import { propProblems } from '../core/definition';
import { type Problem, broken } from '../core/rules';
import { STACK_ID, STACK_ID_RULE } from '../core/stack-id';
import { KUBE_CLUSTER_PROPS, kubeClusterRules } from '../kube/target';
import { dnsName, REPO_PROPS } from '../kube/kube-repo';
import { SSH_HOST_PROPS, sshHostRules } from '../linux/target';
import { CLUSTER_PROPS, clusterRules } from '../pve/target';
import { constructId } from './literal';

export const DISCOVER_KINDS = [
  'metric-server',
  'network-interface',
  'systemd-unit',
  'systemd-instance',
  'systemd-drop-in',
  'kube-repo',
] as const;
export type DiscoverKind = (typeof DISCOVER_KINDS)[number];

type Props = Record<string, unknown>;

export const LANGUAGES = ['ts', 'js'] as const;
export type Language = (typeof LANGUAGES)[number];

/**
 * The language asked for, else the one `--out` names by its extension, else TypeScript: a JavaScript
 * user needed tsx and typescript just to run what discover wrote (issue 28).
 */
const languageOf = (given: unknown, out: unknown): Language =>
  given === 'js' || given === 'ts' ? given : typeof out === 'string' && /\.[cm]?js$/.test(out) ? 'js' : 'ts';

export interface DiscoverOptions {
  /** Where the stack goes; `-` is stdout. */
  readonly out: string;
  /** Replace `out` when it exists; without it an existing file (a stack someone edited) is never overwritten. */
  readonly force: boolean;
  readonly stack: string;
  /**
   * The identity the stack's marks name (src/core/stack-id.ts): an object another stack's mark names is
   * left out. The stack's construct id unless `--stack-id` says otherwise; the app then sets the context.
   */
  readonly stackId: string;
  readonly from: string;
  /** The language of the file: TypeScript, or plain JavaScript that `node` runs as it is. */
  readonly language: Language;
  readonly kinds: ReadonlySet<DiscoverKind>;
  readonly nodes: readonly string[];
  readonly unitGlobs: readonly string[];
  /** Declare each PVE node's management interface too (left out by default: a change to it can cut the node off). */
  readonly includeManagement: boolean;
  /** The targets, as their constructs' props; a domain without one is not read. */
  readonly pve?: Props;
  readonly ssh?: Props;
  readonly kube?: { readonly props: Props; readonly namespaces: readonly string[]; readonly version: string };
}

/** Each flag: the target it sets (or the run), the prop, and how its text becomes a value. */
const FLAGS: Record<
  string,
  {
    readonly to: 'run' | 'pve' | 'ssh' | 'kube';
    readonly prop: string;
    readonly as?: 'number' | 'flag' | 'list' | 'pin';
  }
> = {
  '--out': { to: 'run', prop: 'out' },
  '--force': { to: 'run', prop: 'force', as: 'flag' },
  '--stack': { to: 'run', prop: 'stack' },
  '--stack-id': { to: 'run', prop: 'stackId' },
  '--import': { to: 'run', prop: 'from' },
  '--language': { to: 'run', prop: 'language' },
  '--kinds': { to: 'run', prop: 'kinds', as: 'list' },
  '--node': { to: 'run', prop: 'nodes', as: 'list' },
  '--include-management': { to: 'run', prop: 'includeManagement', as: 'flag' },
  '--unit-glob': { to: 'run', prop: 'unitGlobs', as: 'list' },
  '--namespace': { to: 'run', prop: 'namespaces', as: 'list' },
  '--repo-version': { to: 'run', prop: 'version' },
  '--pve-endpoint': { to: 'pve', prop: 'endpoints', as: 'list' },
  '--pve-token-env': { to: 'pve', prop: 'tokenEnv' },
  '--pve-read-token-env': { to: 'pve', prop: 'readTokenEnv' },
  '--pve-ca-file': { to: 'pve', prop: 'caFile' },
  '--pve-fingerprint': { to: 'pve', prop: 'fingerprints', as: 'pin' },
  '--pve-insecure': { to: 'pve', prop: 'insecure', as: 'flag' },
  '--pve-timeout-seconds': { to: 'pve', prop: 'timeoutSeconds', as: 'number' },
  '--ssh-host': { to: 'ssh', prop: 'host' },
  '--ssh-port': { to: 'ssh', prop: 'port', as: 'number' },
  '--ssh-user': { to: 'ssh', prop: 'user' },
  '--ssh-read-user': { to: 'ssh', prop: 'readUser' },
  '--ssh-read-private-key-env': { to: 'ssh', prop: 'readPrivateKeyEnv' },
  '--ssh-host-key': { to: 'ssh', prop: 'hostKey' },
  '--ssh-insecure-accept-any-host-key': { to: 'ssh', prop: 'insecureAcceptAnyHostKey', as: 'flag' },
  '--ssh-private-key-env': { to: 'ssh', prop: 'privateKeyEnv' },
  '--ssh-command-timeout-seconds': { to: 'ssh', prop: 'commandTimeoutSeconds', as: 'number' },
  '--kubeconfig': { to: 'kube', prop: 'kubeconfig' },
  '--context': { to: 'kube', prop: 'context' },
  '--read-kubeconfig': { to: 'kube', prop: 'readKubeconfig' },
  '--read-context': { to: 'kube', prop: 'readContext' },
  '--kube-in-cluster': { to: 'kube', prop: 'inCluster', as: 'flag' },
  '--kube-timeout-seconds': { to: 'kube', prop: 'timeoutSeconds', as: 'number' },
};

export const USAGE = [
  'usage: cdktf-homelab discover [--out FILE|-] [--force] [--language ts|js] [--stack NAME] [--import MODULE]',
  '         [--stack-id ID] [--kinds K,K] [--node N,N]',
  '         [--unit-glob GLOB] [--namespace NS,NS] [--repo-version V] <targets>',
  'targets (each domain is read only when its target is given; secrets only as variable names):',
  '  PVE:  --pve-endpoint URL[,URL] [--pve-token-env VAR] [--pve-read-token-env VAR] [--pve-ca-file PEM]',
  '        [--pve-fingerprint URL=SHA256] [--include-management]',
  '        [--pve-insecure] [--pve-timeout-seconds N]',
  '  SSH:  --ssh-host HOST [--ssh-port N] [--ssh-user U] --ssh-host-key SHA256:... [--ssh-private-key-env VAR]',
  '        [--ssh-read-user U] [--ssh-read-private-key-env VAR] [--ssh-insecure-accept-any-host-key]',
  '        [--ssh-command-timeout-seconds N]',
  '  Kubernetes: --namespace NS [--kubeconfig PATH] [--context NAME] [--read-kubeconfig PATH] [--read-context NAME]',
  '        [--kube-in-cluster] [--kube-timeout-seconds N]',
  'discover only reads: it connects with the read identity when one is given, and the stack declares both',
  `kinds: ${DISCOVER_KINDS.join(', ')} (default: all)`,
].join('\n');

/** The options, or every problem with them. */
export const parseOptions = (argv: readonly string[]): { options: DiscoverOptions } | { problems: string[] } => {
  const groups: Record<'run' | 'pve' | 'ssh' | 'kube', Props> = { run: {}, pve: {}, ssh: {}, kube: {} };
  const problems: Problem[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag = '', inline] = argv[i]!.split(/=(.*)/s, 2);
    const spec = FLAGS[flag];
    if (spec === undefined) {
      problems.push(broken(argv[i]!, `one of ${Object.keys(FLAGS).join(', ')}`, argv[i]));
      continue;
    }
    const text = spec.as === 'flag' ? 'true' : (inline ?? argv[++i]);
    if (text === undefined) problems.push(broken(flag, 'followed by a value', undefined));
    else put(groups[spec.to], spec, text, problems, flag);
  }
  const run = groups.run;
  const kinds = (run.kinds as string[] | undefined) ?? [...DISCOVER_KINDS];
  for (const kind of kinds) {
    if (!(DISCOVER_KINDS as readonly string[]).includes(kind))
      problems.push(broken('--kinds', `a list of ${DISCOVER_KINDS.join(', ')}`, kind));
  }
  const namespaces = (run.namespaces as string[] | undefined) ?? [];
  for (const namespace of namespaces) {
    const says = dnsName('a namespace name')(namespace);
    if (says !== undefined) problems.push(broken('--namespace', says, namespace));
  }
  if (run.language !== undefined && !(LANGUAGES as readonly unknown[]).includes(run.language))
    problems.push(broken('--language', 'ts or js', run.language));
  const language = languageOf(run.language, run.out);
  const version = (run.version as string | undefined) ?? REPO_PROPS.version.default;
  if (REPO_PROPS.version.rule(version) !== undefined)
    problems.push(broken('--repo-version', REPO_PROPS.version.rule(version)!, version));
  const targets = {
    pve: judged('pve', groups.pve, CLUSTER_PROPS, clusterRules, problems),
    ssh: judged('ssh', groups.ssh, SSH_HOST_PROPS, sshHostRules, problems),
    kube: judged('kube', groups.kube, KUBE_CLUSTER_PROPS, kubeClusterRules, problems),
  };
  if (targets.kube !== undefined && namespaces.length === 0) {
    problems.push(broken('--namespace', 'given with the Kubernetes settings', undefined));
  }
  if (!targets.pve && !targets.ssh && namespaces.length === 0) {
    problems.push(broken('targets', 'at least one of --pve-endpoint, --ssh-host, --namespace', undefined));
  }
  const stack = (run.stack as string | undefined) ?? 'discovered';
  const stackId = (run.stackId as string | undefined) ?? constructId(stack, new Set());
  if (!STACK_ID.test(stackId)) {
    const flag = run.stackId === undefined ? '--stack' : '--stack-id';
    problems.push(broken(flag, `a stack identity (${STACK_ID_RULE}), or give --stack-id one`, stackId));
  }
  if (problems.length > 0) return { problems: problems.map((p) => `${p.prop} ${p.says}`) };
  return {
    options: {
      out: (run.out as string | undefined) ?? `discovered.${language}`,
      language,
      force: run.force === true,
      stack,
      stackId,
      from: (run.from as string | undefined) ?? 'cdktf-homelab',
      kinds: new Set(kinds as DiscoverKind[]),
      nodes: (run.nodes as string[] | undefined) ?? [],
      unitGlobs: (run.unitGlobs as string[] | undefined) ?? [],
      includeManagement: run.includeManagement === true,
      ...(targets.pve ? { pve: targets.pve } : {}),
      ...(targets.ssh ? { ssh: targets.ssh } : {}),
      ...(namespaces.length > 0 ? { kube: { props: targets.kube ?? {}, namespaces, version } } : {}),
    },
  };
};

const put = (group: Props, spec: (typeof FLAGS)[string], text: string, problems: Problem[], flag: string) => {
  if (spec.as === 'list')
    group[spec.prop] = [...((group[spec.prop] as string[]) ?? []), ...text.split(',').filter((s) => s !== '')];
  else if (spec.as === 'flag') group[spec.prop] = true;
  else if (spec.as === 'number') group[spec.prop] = /^\d+$/.test(text) ? Number(text) : text;
  else if (spec.as === 'pin') {
    const at = text.lastIndexOf('=');
    if (at <= 0) problems.push(broken(flag, 'ENDPOINT=FINGERPRINT', text));
    else group[spec.prop] = { ...((group[spec.prop] as Props) ?? {}), [text.slice(0, at)]: text.slice(at + 1) };
  } else group[spec.prop] = text;
};

/** A target's props judged by its construct's table and rules, problems named by flag; undefined when none given. */
const judged = (
  to: 'pve' | 'ssh' | 'kube',
  props: Props,
  table: Parameters<typeof propProblems>[1],
  rules: (props: Props) => Problem[],
  problems: Problem[],
): Props | undefined => {
  if (Object.keys(props).length === 0) return undefined;
  const flagOf = (prop: string) =>
    Object.entries(FLAGS).find(([, spec]) => spec.to === to && spec.prop === prop.split(/[.[]/)[0])?.[0] ?? prop;
  for (const problem of [...propProblems('the target', table, props), ...rules(props)])
    problems.push({ ...problem, prop: flagOf(problem.prop) });
  return props;
};
