/**
 * Every handler domain and object kind, in one place. Constructs take a kind's domain from here,
 * the bundler builds one bundle per domain, the docs generator reads the construct files, and each
 * handler table is typed to serve exactly its domain's kinds, so a kind cannot be half-registered.
 */

/** A domain is one handler bundle and the connection target its objects share. */
export const DOMAINS = {
  pve: { handler: 'handlers/pve/main.ts', targetConstruct: 'constructs/pve/cluster.ts' },
  linux: { handler: 'handlers/linux/main.ts', targetConstruct: 'constructs/linux/ssh-host.ts' },
  kube: { handler: 'handlers/kube/main.ts', targetConstruct: 'constructs/kube/cluster.ts' },
} as const;

/**
 * Each object kind and the domain whose bundle serves it. A kind `k` of domain `d` is its
 * definition `src/d/k.ts`, its handler `handlers/d/k.ts` and its construct `constructs/d/k.ts`
 * (`kindFiles`), exported from index.ts; the registry test holds every kind to that. `ownership:
 * 'state'` marks a kind whose target has no place for a mark of ownership: its lifecycle records
 * whether the stack found the object (ownership.ts), and its handler says whether it `exists`. `readsRemoval`
 * marks a kind whose destroy may do more than remove it (a template drop-in's restarts its template's instances, a
 * unit's stop stops the units bound to it):
 * its target's read is told of the ones a plan removes and says it (ObjectKind.readRemovals). `tearsDown` marks a kind
 * whose objects' destroys may run together, in any order, in its target's teardown (constructs/core/teardown.ts): its
 * domain's destroy of a batch orders them (systemd's stop jobs). Network interfaces are staged and reloaded in an
 * order, and the Repos' fetch asks name their Repos: those stay with their hooks, and so do metric servers, whose
 * lifecycle input is no literal (it records what the read found) and whose destroy Terraform's own time bounds.
 */
export const KINDS = {
  'metric-server': { domain: 'pve', ownership: 'state' },
  'network-interface': { domain: 'pve', ownership: 'state' },
  'network-apply': { domain: 'pve' },
  'systemd-unit': { domain: 'linux', readsRemoval: true, tearsDown: true },
  'systemd-instance': { domain: 'linux', readsRemoval: true, tearsDown: true },
  'systemd-drop-in': { domain: 'linux', readsRemoval: true, tearsDown: true },
  'kube-repo': { domain: 'kube' },
  'kube-repo-fetch': { domain: 'kube' },
} as const satisfies Record<
  string,
  { readonly domain: DomainName; readonly ownership?: 'state'; readonly readsRemoval?: true; readonly tearsDown?: true }
>;

export type DomainName = keyof typeof DOMAINS;
export type KindName = keyof typeof KINDS;

/** The kinds one domain's bundle must serve. */
export type KindsOf<D extends DomainName> = {
  [K in KindName]: (typeof KINDS)[K]['domain'] extends D ? K : never;
}[KindName];

export const domainOf = (kind: KindName): DomainName => KINDS[kind].domain;

/** Where the stack's ownership of a `kind` object is kept (ManagedObjectProps.ownership). */
export const ownershipOf = (kind: KindName): 'target' | 'state' => {
  const entry = KINDS[kind];
  return 'ownership' in entry ? entry.ownership : 'target';
};

/** Whether the read of a `kind` object's target is told when a plan removes it (KINDS' `readsRemoval`). */
export const readsRemoval = (kind: KindName): boolean => 'readsRemoval' in KINDS[kind];

/** Whether the destroys of `kind`'s objects may run in their target's teardown (`tearsDown`). */
export const tearsDown = (kind: string): boolean => isKindName(kind) && 'tearsDown' in KINDS[kind];

/** Whether `name` names a kind of the registry. */
export const isKindName = (name: string): name is KindName => Object.hasOwn(KINDS, name);

/** The kinds of `domain`, for tests and the docs. */
export const kindsOf = (domain: DomainName): KindName[] =>
  Object.keys(KINDS)
    .filter(isKindName)
    .filter((kind) => KINDS[kind].domain === domain);

/** The three files of a kind, by the one naming rule. */
export const kindFiles = (kind: KindName): { definition: string; handler: string; construct: string } => {
  const { domain } = KINDS[kind];
  return {
    definition: `src/${domain}/${kind}.ts`,
    handler: `handlers/${domain}/${kind}.ts`,
    construct: `constructs/${domain}/${kind}.ts`,
  };
};
