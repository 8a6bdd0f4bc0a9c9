/**
 * A fresh fake PVE node `n2` for each test of a file (NICs eno1 and enp2s0, vmbr0 on eno1 holding the node's default
 * gateway, as a fresh install), with the batch plan and apply of interfaces declared there and the check that both
 * refuse a change alike: the contract tests of PVE's stage rules share one setup instead of drifting apart. And the
 * builder of a node's interfaces file the PVE fixtures write, so their files keep PVE's layout in one place.
 */
import { pveDomain } from '../../handlers/pve/domain';
import { type FakePve, type FakePveOptions, startFakePve } from '../fakes/pve/server';
import { invokeBatch, invokeBatchApply } from './run-handler';

/** An interface declared on n2, applied after the interfaces `after` names. */
export interface DeclaredInterface {
  readonly iface: string;
  readonly type: string;
  readonly options: Record<string, unknown>;
  readonly after?: string[];
}

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

/**
 * A node's running /etc/network/interfaces as PVE's installer and writer lay it out: loopback, each NIC `manual`,
 * then each of `stanzas`, every stanza followed by a blank line.
 */
export const interfacesFile = (nics: readonly string[], stanzas: ReadonlyArray<readonly string[]> = []): string =>
  [['auto lo', 'iface lo inet loopback'], ...nics.map((nic) => [`iface ${nic} inet manual`]), ...stanzas]
    .flatMap((stanza) => [...stanza, ''])
    .join('\n');

/**
 * A bridge's stanza on `ports`, STP off and no forward delay, as PVE writes it: `addressed` lines (an address, a
 * gateway) before its ports make it `inet static`; `extra` lines (VLAN awareness, an mtu, a comment) come last.
 */
export const bridgeStanza = (
  iface: string,
  ports: string,
  { addressed = [], extra = [] }: { readonly addressed?: readonly string[]; readonly extra?: readonly string[] } = {},
): string[] => [
  `auto ${iface}`,
  `iface ${iface} inet ${addressed.length > 0 ? 'static' : 'manual'}`,
  ...addressed,
  `\tbridge-ports ${ports}`,
  '\tbridge-stp off',
  '\tbridge-fd 0',
  ...extra,
];

export const lastLine = (text: string) => text.split('\n').pop();

/**
 * A fake PVE with nodes n2 and n3, each running vmbr1 on enp2s0 and vmbr2 on enp3s0 besides a fresh install's
 * vmbr0: the two plan-race files edit one bridge of a node by hand between a plan and its apply.
 */
export const startTwoBridgeNodes = async (
  physical: readonly string[],
  options: FakePveOptions = {},
): Promise<FakePve> => {
  const fake = await startFakePve({ ...options, nodes: ['n2', 'n3'], network: { n2: { physical }, n3: { physical } } });
  const bridges = [bridgeStanza('vmbr1', 'enp2s0'), bridgeStanza('vmbr2', 'enp3s0')];
  for (const node of ['n2', 'n3']) {
    const { running } = fake.interfacesFiles(node);
    fake.setInterfacesFiles(node, {
      running: `${running}\n${bridges.map((lines) => lines.join('\n')).join('\n\n')}\n`,
    });
  }
  return fake;
};

const objects = (specs: readonly DeclaredInterface[]) =>
  Object.fromEntries(
    specs.map(({ after = [], ...spec }) => [
      spec.iface,
      { kind: 'network-interface', spec: { node: 'n2', ...spec }, after },
    ]),
  );

export const useNetworkNode = () => {
  let started: FakePve | undefined;
  beforeEach(async () => {
    started = await startFakePve({ nodes: ['n2'], network: { n2: { physical: ['eno1', 'enp2s0'] } } });
  });
  afterEach(() => started?.stop());
  const fake = (): FakePve => {
    if (started === undefined) throw new Error('the fake PVE runs only inside a test');
    return started;
  };
  const target = () => ({ endpoints: [fake().url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
  const plan = (specs: readonly DeclaredInterface[]) => invokeBatch(pveDomain(), target(), objects(specs), env);
  const apply = (specs: readonly DeclaredInterface[]) => invokeBatchApply(pveDomain(), target(), objects(specs), env);
  /** The writes the fake received since its requests were last cleared. */
  const writes = () =>
    fake()
      .requests.filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.path}`);
  return {
    fake,
    plan,
    apply,
    writes,
    /** The plan fails with `planLine` last; the apply then fails (stderr holding `applyText`) and writes nothing. */
    expectRefusedAlike: async (declared: readonly DeclaredInterface[], planLine: string, applyText?: string) => {
      const planned = await plan(declared);
      expect([planned.code, lastLine(planned.stderr)]).toEqual([1, planLine]);
      fake().requests.length = 0;
      const applied = await apply(declared);
      expect(applied.code).toBe(1);
      if (applyText !== undefined) expect(applied.stderr).toContain(applyText);
      expect(writes()).toEqual([]);
    },
  };
};
