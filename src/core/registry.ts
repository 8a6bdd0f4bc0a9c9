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

/** Each object kind: the domain whose bundle serves it and the construct users declare it with. */
export const KINDS = {
  'metric-server': { domain: 'pve', construct: 'constructs/pve/metric-server.ts' },
  'network-interface': { domain: 'pve', construct: 'constructs/pve/network-interface.ts' },
  'network-apply': { domain: 'pve', construct: 'constructs/pve/network-apply.ts' },
  'systemd-unit': { domain: 'linux', construct: 'constructs/linux/systemd-unit.ts' },
  'kube-repo': { domain: 'kube', construct: 'constructs/kube/repo.ts' },
  'kube-repo-fetch': { domain: 'kube', construct: 'constructs/kube/repo-fetch.ts' },
  'systemd-instance': { domain: 'linux', construct: 'constructs/linux/systemd-instance.ts' },
  'systemd-drop-in': { domain: 'linux', construct: 'constructs/linux/systemd-drop-in.ts' },
} as const satisfies Record<string, { readonly domain: DomainName; readonly construct: string }>;

export type DomainName = keyof typeof DOMAINS;
export type KindName = keyof typeof KINDS;

/** The kinds one domain's bundle must serve. */
export type KindsOf<D extends DomainName> = {
  [K in KindName]: (typeof KINDS)[K]['domain'] extends D ? K : never;
}[KindName];

export const domainOf = (kind: KindName): DomainName => KINDS[kind].domain;

/** The kinds of `domain`, for tests and the docs. */
export const kindsOf = (domain: DomainName): KindName[] =>
  (Object.keys(KINDS) as KindName[]).filter((kind) => KINDS[kind].domain === domain);
