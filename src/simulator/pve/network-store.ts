// Each node's /etc/network/interfaces and interfaces.new, with the staging semantics of PVE's
// network API: every write lands in the staged file, reads show the staged view when there is one
// (so a row alone cannot tell staged from running), and only a reload moves it over.
// Source: pve-api.md §A2; [PM] PVE/API2/Network.pm; [PC] PVE/INotify.pm read_file/write_file.
import { die, paramError } from './envelope';
import { groupsOf } from './narrow';
import { unifiedDiff } from './network-diff';
import { HOST_IPV6_TYPES, ipv6HostType } from './network-formats';
import { parseInterfaces, type Iface, type InterfacesConfig } from './network-parse';
import { renderInterfaces } from './network-render';
import { splitList, type Value } from './validate';

export interface NodeFiles {
  running: string;
  staged?: string;
  runningMtimeMs: number;
  stagedMtimeMs: number;
}

export interface NodeNetworkSetup {
  /** Physical NICs as `ip link` lists them. @default ['eno1', 'enp2s0'] */
  readonly physical?: readonly string[];
  /** The running file. @default - lo, the NICs, and vmbr0 on eno1 with 10.0.0.<n>/24 */
  readonly running?: string;
  /** The staged file, interfaces.new. @default - none: nothing staged */
  readonly staged?: string;
  /** Whether ifupdown2 is installed; without it a reload is refused. @default true */
  readonly ifupdown2?: boolean;
}

const RUNNING = '/etc/network/interfaces';
const STAGED = '/etc/network/interfaces.new';

/** What a fresh node runs: rendered by the writer itself, so a no-op write stages nothing. */
const defaultFile = (index: number, physical: readonly string[]): string => {
  const config = parseInterfaces('', { physical, active: [] });
  config.ifaces.vmbr0 = {
    type: 'bridge',
    autostart: 1,
    families: ['inet'],
    method: 'static',
    method6: 'manual',
    priority: 3,
    address: `10.0.0.${index + 1}/24`,
    gateway: '10.0.0.254',
    bridge_ports: physical[0] ?? '',
    bridge_stp: 'off',
    bridge_fd: 0,
  };
  return renderInterfaces(config);
};

/** One node as the store holds it: its files, its NICs, and whether ifupdown2 is installed. */
interface NodeRecord {
  readonly files: NodeFiles;
  readonly physical: readonly string[];
  readonly ifupdown2: boolean;
}

export class NetworkStore {
  private readonly nodes = new Map<string, NodeRecord>();

  /** `indexOf` places a node among the members, which picks its default address. */
  constructor(
    private readonly now: () => number,
    private readonly indexOf: (node: string) => number,
  ) {}

  /** Sets a node's NICs and files; the running file is kept unless given, the staged one replaced. */
  setNode(node: string, setup: NodeNetworkSetup = {}): void {
    this.place(node, setup);
  }

  /** A node's files, created with the defaults on first use. */
  filesOf(node: string): NodeFiles {
    return this.nodeOf(node).files;
  }

  private nodeOf(node: string): NodeRecord {
    return this.nodes.get(node) ?? this.place(node, {});
  }

  private place(node: string, setup: NodeNetworkSetup): NodeRecord {
    const old = this.nodes.get(node);
    const physical = setup.physical ?? old?.physical ?? ['eno1', 'enp2s0'];
    const ifupdown2 = setup.ifupdown2 ?? old?.ifupdown2 ?? true;
    const running = setup.running ?? old?.files.running ?? defaultFile(this.indexOf(node), physical);
    const files = { running, staged: setup.staged, runningMtimeMs: this.now(), stagedMtimeMs: this.now() };
    const record = { files, physical, ifupdown2 };
    this.nodes.set(node, record);
    return record;
  }

  /** read_file('interfaces', 1): the staged view when one exists, plus the `-b` diff against running. */
  read(node: string): { config: InterfacesConfig; changes?: string } {
    const { files, physical } = this.nodeOf(node);
    const active = this.activeIn(node);
    const config = parseInterfaces(files.staged ?? files.running, { physical, active });
    if (files.staged === undefined) return { config };
    const changes = unifiedDiff(
      { name: RUNNING, text: files.running, mtimeMs: files.runningMtimeMs },
      { name: STAGED, text: files.staged, mtimeMs: files.stagedMtimeMs },
    );
    return changes === undefined ? { config } : { config, changes };
  }

  /** write_file: renders the config into the staged file; a writer die leaves the files as they were. */
  private write(node: string, config: InterfacesConfig): void {
    const text = renderInterfaces(config);
    const files = this.filesOf(node);
    files.staged = text;
    files.stagedMtimeMs = this.now();
  }

  /** POST: create. `params` are validated API values without `node`. */
  create(node: string, params: Record<string, Value>): void {
    const { iface, ...param } = params;
    const name = String(iface);
    const { config } = this.read(node);
    if (config.ifaces[name]) throw paramError({ iface: 'interface already exists' });
    checkDuplicates(config.ifaces, name, param);
    const d: Iface = { ...mapCidr(param) };
    checkIpv6(d);
    const families = [...(d.address ? ['inet'] : []), ...(d.address6 ? ['inet6'] : [])];
    d.families = families.length > 0 ? families : ['inet'];
    d.method = d.address ? 'static' : 'manual';
    d.method6 = d.address6 ? 'static' : 'manual';
    if (param.bridge_vids !== undefined) d.bridge_vids = normalizeVids(param.bridge_vids);
    config.ifaces[name] = d;
    this.write(node, config);
  }

  /** PUT: update, `delete` first; bridge_vids is stored as sent (PVE normalises a copy too late). */
  update(node: string, name: string, params: Record<string, Value>): void {
    const { delete: deleteList, ...param } = params;
    const { config } = this.read(node);
    const d = config.ifaces[name];
    if (!d) throw paramError({ iface: 'interface does not exist' });
    for (const key of deleteList === undefined ? [] : splitList(String(deleteList))) {
      delete d[key];
      if (key === 'cidr') [d.address, d.netmask] = [undefined, undefined];
      if (key === 'cidr6') [d.address6, d.netmask6] = [undefined, undefined];
    }
    const mapped = mapCidr(param);
    checkDuplicates(config.ifaces, name, mapped);
    checkIpv6(mapped);
    const families = [...(mapped.address ? ['inet'] : []), ...(mapped.address6 ? ['inet6'] : [])];
    Object.assign(d, mapped, {
      families: families.length > 0 ? families : ['inet'],
      method: mapped.address ? 'static' : 'manual',
      method6: mapped.address6 ? 'static' : 'manual',
    });
    if (mapped.bridge_vids !== undefined) normalizeVids(String(mapped.bridge_vids));
    this.write(node, config);
  }

  /** GET on one interface: the row without its name, or PVE's 400. */
  row(config: InterfacesConfig, name: string): Iface {
    const d = config.ifaces[name];
    if (!d) throw paramError({ iface: 'interface does not exist' });
    return d;
  }

  /** DELETE on one interface. */
  remove(node: string, name: string): void {
    const { config } = this.read(node);
    if (!config.ifaces[name]) throw paramError({ iface: 'interface does not exist' });
    delete config.ifaces[name];
    this.write(node, config);
  }

  /** DELETE on the node: unlinks interfaces.new, discarding every staged change. */
  revert(node: string): void {
    delete this.filesOf(node).staged;
  }

  /** assert_ifupdown2_installed, which the reload runs before it forks its worker. */
  assertReloadable(node: string): void {
    if (!this.nodeOf(node).ifupdown2) throw die('you need ifupdown2 to reload network configuration');
  }

  /** The reload worker's first step: interfaces.new replaces interfaces. */
  promote(node: string): void {
    const files = this.filesOf(node);
    if (files.staged === undefined) return;
    [files.running, files.runningMtimeMs] = [files.staged, files.stagedMtimeMs];
    delete files.staged;
  }

  // After a reload every auto interface of the running file is up; /proc is not modelled further.
  private activeIn(node: string): string[] {
    const lines = this.filesOf(node).running.split('\n');
    return lines.flatMap((line) => /^\s*auto\s+(.*)$/.exec(line)?.[1]?.split(/\s+/).filter(Boolean) ?? []);
  }
}

/** $map_cidr_to_address_netmask: cidr becomes address + netmask, refusing both at once. */
const mapCidr = (param: Record<string, Value>): Iface => {
  const out: Iface = { ...param };
  for (const suffix of ['', '6']) {
    const cidr = param[`cidr${suffix}`];
    if (!cidr) continue;
    if (param[`address${suffix}`])
      throw paramError({ [`address${suffix}`]: `address${suffix} conflicts with cidr${suffix}` });
    if (param[`netmask${suffix}`])
      throw paramError({ [`netmask${suffix}`]: `netmask${suffix} conflicts with cidr${suffix}` });
    // A cidr the format check let through always splits; Perl's list assignment leaves both undef otherwise.
    const [address, mask] = groupsOf(/^(.*)\/(\d+)$/, String(cidr));
    [out[`address${suffix}`], out[`netmask${suffix}`]] = [address, mask];
    delete out[`cidr${suffix}`];
  }
  return out;
};

/** check_ipv6_settings: an address6 must be a global, unique-local or link-local unicast host address. */
const checkIpv6 = (d: Iface): void => {
  const address = d.address6;
  if (typeof address !== 'string' || address === '') return;
  const type = ipv6HostType(address, Number(d.netmask6));
  if (!HOST_IPV6_TYPES.has(type)) {
    throw paramError({ address: `${address} with type '${type}', cannot be used as host IPv6 address.` });
  }
};

/** One default gateway per family per node, and a port in one bridge or bond only. */
const checkDuplicates = (ifaces: Record<string, Iface>, name: string, param: Record<string, unknown>): void => {
  for (const [key, label] of [
    ['gateway', 'Default gateway'],
    ['gateway6', 'Default ipv6 gateway'],
  ] as const) {
    if (!param[key]) continue;
    const holder = Object.entries(ifaces).find(([other, d]) => other !== name && d[key])?.[0];
    if (holder) throw paramError({ [key]: `${label} already exists on interface '${holder}'.` });
  }
  const portKey = ['bridge_ports', 'slaves'].find((key) => param[key]);
  if (!portKey) return;
  const ports = new Set(splitList(String(param[portKey])));
  for (const [other, d] of Object.entries(ifaces)) {
    if (other === name) continue;
    for (const port of splitList(`${String(d.bridge_ports ?? '')} ${String(d.slaves ?? '')}`)) {
      if (ports.has(port)) throw paramError({ [portKey]: `${port} is already used on interface '${other}'.` });
    }
  }
};

const normalizeVids = (value: Value): string => {
  const items = splitList(String(value));
  if (items.length === 0) throw paramError({ bridge_vids: 'VLAN list items are empty' });
  return items.join(' ');
};
