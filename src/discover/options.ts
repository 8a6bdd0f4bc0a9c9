/**
 * `cdktf-homelab discover`'s command line, parsed and judged in one place: every target setting by
 * the rules of the target construct that takes it (its props table), secrets only as variable names,
 * and every problem reported at once, so a wrong flag never reaches a server.
 */
import { propProblems } from '../core/definition';
import { type Problem, broken } from '../core/rules';
import { STACK_ID, STACK_ID_RULE } from '../core/stack-id';
import { KUBE_CLUSTER_PROPS, kubeClusterRules } from '../kube/target';
import { namespaceName, REPO_FIELDS } from '../kube/repo-fields';
import { SSH_HOST_PROPS, sshHostRules } from '../linux/target';
import { CLUSTER_PROPS, clusterRules } from '../pve/target';
import type { Value } from './declaration';
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

/** A target's props, as its construct takes them and the stack states them. */
type Props = Readonly<Record<string, Value>>;

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

type Target = 'pve' | 'ssh' | 'kube';
type FlagSpec = { readonly as?: 'number' | 'flag' | 'list' | 'pin' } & (
  { readonly to: 'run' } | { readonly to: Target; readonly prop: string }
);

/** Each flag: the target and prop it sets (or the run, which reads it by flag), and how its text becomes a value. */
const FLAGS: Readonly<Record<string, FlagSpec>> = {
  '--out': { to: 'run' },
  '--force': { to: 'run', as: 'flag' },
  '--stack': { to: 'run' },
  '--stack-id': { to: 'run' },
  '--import': { to: 'run' },
  '--language': { to: 'run' },
  '--kinds': { to: 'run', as: 'list' },
  '--node': { to: 'run', as: 'list' },
  '--include-management': { to: 'run', as: 'flag' },
  '--unit-glob': { to: 'run', as: 'list' },
  '--namespace': { to: 'run', as: 'list' },
  '--repo-version': { to: 'run' },
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

/** Each flag given and its texts, in the order given: a repeated flag keeps all of them. */
type Given = ReadonlyMap<string, readonly string[]>;

/** The flags of `argv` and their texts; an unknown flag, a missing value or a bad pin is a problem. */
const readFlags = (argv: readonly string[], problems: Problem[]): Given => {
  const given = new Map<string, string[]>();
  const args = [...argv];
  for (let arg = args.shift(); arg !== undefined; arg = args.shift()) {
    const [flag = '', inline] = arg.split(/=(.*)/s, 2);
    const spec = FLAGS[flag];
    if (spec === undefined) {
      problems.push(broken(arg, `one of ${Object.keys(FLAGS).join(', ')}`, arg));
      continue;
    }
    const text = spec.as === 'flag' ? 'true' : (inline ?? args.shift());
    if (text === undefined) problems.push(broken(flag, 'followed by a value', undefined));
    else if (spec.as === 'pin' && text.lastIndexOf('=') <= 0) problems.push(broken(flag, 'ENDPOINT=FINGERPRINT', text));
    else given.set(flag, [...(given.get(flag) ?? []), text]);
  }
  return given;
};

/** A list flag's items: each text given, split at commas, empty items dropped. */
const itemsOf = (texts: readonly string[]): string[] =>
  texts.flatMap((text) => text.split(',').filter((s) => s !== ''));

/** A flag's value from its texts: the last one, a list of them all, a number, `true`, or pins keyed by endpoint. */
const valueOf = (as: (typeof FLAGS)[string]['as'], texts: readonly string[]): Value => {
  const last = texts.at(-1) ?? '';
  if (as === 'list') return itemsOf(texts);
  if (as === 'flag') return true;
  if (as === 'number') return /^\d+$/.test(last) ? Number(last) : last;
  if (as === 'pin') {
    const at = (text: string) => text.lastIndexOf('=');
    return Object.fromEntries(texts.map((text) => [text.slice(0, at(text)), text.slice(at(text) + 1)]));
  }
  return last;
};

/** The props of the target `to` the flags given set, in the order they were first given. */
const propsOf = (given: Given, to: Target): Props =>
  Object.fromEntries(
    [...given].flatMap(([flag, texts]) => {
      const spec = FLAGS[flag];
      return spec?.to === to ? [[spec.prop, valueOf(spec.as, texts)]] : [];
    }),
  );

const lastOf = (given: Given, flag: string): string | undefined => given.get(flag)?.at(-1);
const listOf = (given: Given, flag: string): string[] | undefined => {
  const texts = given.get(flag);
  return texts === undefined ? undefined : itemsOf(texts);
};

/** The run's own settings (not a target's), each judged; problems named by flag. */
const runSettings = (given: Given, problems: Problem[]) => {
  const kinds = (listOf(given, '--kinds') ?? [...DISCOVER_KINDS]).flatMap((kind) => {
    const known = DISCOVER_KINDS.find((name) => name === kind);
    if (known === undefined) problems.push(broken('--kinds', `a list of ${DISCOVER_KINDS.join(', ')}`, kind));
    return known === undefined ? [] : [known];
  });
  const namespaces = listOf(given, '--namespace') ?? [];
  for (const namespace of namespaces) {
    const says = namespaceName(namespace);
    if (says !== undefined) problems.push(broken('--namespace', says, namespace));
  }
  const asked = lastOf(given, '--language');
  if (asked !== undefined && !LANGUAGES.some((language) => language === asked))
    problems.push(broken('--language', 'ts or js', asked));
  const out = lastOf(given, '--out');
  const language = languageOf(asked, out);
  const version = lastOf(given, '--repo-version') ?? REPO_FIELDS.version.default;
  const versionSays = REPO_FIELDS.version.rule(version);
  if (versionSays !== undefined) problems.push(broken('--repo-version', versionSays, version));
  return {
    out: out ?? `discovered.${language}`,
    language,
    force: given.has('--force'),
    from: lastOf(given, '--import') ?? 'cdktf-homelab',
    kinds: new Set(kinds),
    nodes: listOf(given, '--node') ?? [],
    unitGlobs: listOf(given, '--unit-glob') ?? [],
    includeManagement: given.has('--include-management'),
    namespaces,
    version,
  };
};

/** The stack's construct id and the identity its marks name, which must be a stack identity. */
const stackOf = (given: Given, problems: Problem[]) => {
  const stack = lastOf(given, '--stack') ?? 'discovered';
  const stackId = lastOf(given, '--stack-id') ?? constructId(stack, new Set());
  if (!STACK_ID.test(stackId)) {
    const flag = given.has('--stack-id') ? '--stack-id' : '--stack';
    problems.push(broken(flag, `a stack identity (${STACK_ID_RULE}), or give --stack-id one`, stackId));
  }
  return { stack, stackId };
};

/** The options, or every problem with them. */
export const parseOptions = (argv: readonly string[]): { options: DiscoverOptions } | { problems: string[] } => {
  const problems: Problem[] = [];
  const given = readFlags(argv, problems);
  const { namespaces, version, ...run } = runSettings(given, problems);
  const targets = {
    pve: judged('pve', propsOf(given, 'pve'), CLUSTER_PROPS, clusterRules, problems),
    ssh: judged('ssh', propsOf(given, 'ssh'), SSH_HOST_PROPS, sshHostRules, problems),
    kube: judged('kube', propsOf(given, 'kube'), KUBE_CLUSTER_PROPS, kubeClusterRules, problems),
  };
  if (targets.kube !== undefined && namespaces.length === 0) {
    problems.push(broken('--namespace', 'given with the Kubernetes settings', undefined));
  }
  if (!targets.pve && !targets.ssh && namespaces.length === 0) {
    problems.push(broken('targets', 'at least one of --pve-endpoint, --ssh-host, --namespace', undefined));
  }
  const stack = stackOf(given, problems);
  if (problems.length > 0) return { problems: problems.map((p) => `${p.prop} ${p.says}`) };
  return {
    options: {
      ...run,
      ...stack,
      ...(targets.pve ? { pve: targets.pve } : {}),
      ...(targets.ssh ? { ssh: targets.ssh } : {}),
      ...(namespaces.length > 0 ? { kube: { props: targets.kube ?? {}, namespaces, version } } : {}),
    },
  };
};

/** A target's props judged by its construct's table and rules, problems named by flag; undefined when none given. */
const judged = (
  to: Target,
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
