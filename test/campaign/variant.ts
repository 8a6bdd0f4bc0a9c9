/**
 * The two variants of the fault campaign's stack as plain data: the app declares them and the verifier
 * checks the targets against them, so what is declared and what is checked cannot drift apart.
 * Every object differs between the variants but one control unit, and one unit is renamed.
 */
export type Variant = 'a' | 'b';

export const otherVariant = (variant: Variant): Variant => (variant === 'a' ? 'b' : 'a');

/** Every name the campaign gives an object starts with this, so strays are found by name. */
export const PREFIX = 'fa-';

export interface MetricServerDecl {
  readonly id: string;
  readonly server: string;
  readonly port: number;
  readonly path: string;
}

export const metricServers = (v: Variant): MetricServerDecl[] => [
  { id: 'fa-m1', server: '10.0.0.5', port: v === 'a' ? 2003 : 2004, path: 'proxmox' },
  { id: 'fa-m2', server: v === 'a' ? '10.0.0.6' : '10.0.0.7', port: 2003, path: 'proxmox' },
  { id: 'fa-m3', server: '10.0.0.8', port: 2003, path: `fa.${v}` },
];

/** The nodes the network apply reloads, in order. */
export const PVE_NODES = ['n2', 'n3'];

export interface InterfaceDecl {
  readonly node: string;
  readonly iface: string;
  readonly type: 'bridge' | 'vlan';
  readonly address: string;
  readonly netmask: string;
  readonly bridgePorts?: string;
  readonly mtu?: number;
  readonly comments?: string;
}

export const interfaces = (v: Variant): InterfaceDecl[] =>
  PVE_NODES.flatMap((node, i): InterfaceDecl[] => [
    {
      node,
      iface: 'vmbr7',
      type: 'bridge',
      address: `10.7.${v === 'a' ? 0 : 1}.${i + 2}`,
      netmask: '24',
      bridgePorts: 'enp2s0',
      comments: `fa bridge ${v}`,
    },
    { node, iface: 'vmbr0.47', type: 'vlan', address: `10.47.0.${i + 2}`, netmask: '24', mtu: v === 'a' ? 1500 : 1400 },
  ]);

export interface UnitDecl {
  readonly name: string;
  /** Environment the running process must have: the unit's, its drop-in's, and `%i` expanded. */
  readonly environment: Readonly<Record<string, string>>;
  /** `[Service] Environment=` of the unit file itself. */
  readonly fileEnvironment: string;
  readonly dropIn?: { readonly name: string; readonly environment: string };
  /** For a template: the instance the stack declares (the template itself is a file only). */
  readonly instance?: string;
}

export const units = (v: Variant): UnitDecl[] => [
  {
    name: 'fa-svc.service',
    fileEnvironment: `V=${v}`,
    environment: { V: v, D: v },
    dropIn: { name: '10-fa', environment: `D=${v}` },
  },
  { name: `fa-side-${v}.service`, fileEnvironment: `V=${v}`, environment: { V: v } },
  { name: 'fa-tpl@.service', fileEnvironment: `"V=${v}" "I=%i"`, environment: { V: v, I: 'one' }, instance: 'one' },
  { name: 'fa-plain.service', fileEnvironment: 'V=steady', environment: { V: 'steady' } },
];

/**
 * Instances of the template that no variant declares, enabled by hand once the stand is applied: under /etc for good,
 * and under /run until reboot. An apply that disables or re-enables the template by its name unlinks them, then links
 * them again (unit-template-disable.ts); a fault in between must leave a plan that says so.
 */
export const HAND_INSTANCES = { etc: 'fa-tpl@hand.service', run: 'fa-tpl@rt.service' } as const;

/** The unit file's text as the stack declares it (renderUnit's sections). */
export const unitSections = (unit: UnitDecl, v: Variant) => [
  { name: 'Unit', lines: [['Description', `fault campaign ${unit.name} ${v}`]] as Array<[string, string]> },
  {
    name: 'Service',
    lines: [
      ['Environment', unit.fileEnvironment],
      ['ExecStart', '/bin/sleep infinity'],
    ] as Array<[string, string]>,
  },
  { name: 'Install', lines: [['WantedBy', 'multi-user.target']] as Array<[string, string]> },
];

export const dropInSections = (environment: string) => [
  { name: 'Service', lines: [['Environment', environment]] as Array<[string, string]> },
];

export interface RepoDecl {
  readonly key: string;
  readonly url: string;
  readonly identity: string;
}

export const repos = (v: Variant): RepoDecl[] => [
  { key: 'fa-r1', url: `https://git.example/me/fa-r1-${v}.git`, identity: 'git.example/me/fa-r1' },
  { key: 'fa-r2', url: 'https://git.example/me/fa-r2.git', identity: 'git.example/me/fa-r2' },
];
