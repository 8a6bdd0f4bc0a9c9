/**
 * PVE's writer dies (500) on a file where a bridge port holds a static address (`iface enp2s0 - ip address can't be
 * set on interface if bridged in vmbr1`) or a bond slave is neither a NIC nor a bond (`bond 'bond0' - wrong interface
 * type on slave 'vmbr0' ('bridge' != 'eth or bond')`), and it marks every bond slave `auto` ([PC] f665029
 * src/PVE/Network/Interfaces.pm:890-907, 1003-1029). Regression: the plan read such an interface as only absent or
 * changed, "apply converges it", and the apply failed on PVE's 500; a declared bond that another declared bond takes
 * as a slave, left without autostart, read `autostart is true, want false` on every plan and each apply's read-back
 * failed. Now the plan and the apply refuse the first two in the same words, and the third plans in sync.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { invokeBatch, invokeBatchApply } from '../../support/run-handler';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

let fake: FakePve;
beforeEach(async () => {
  fake = await startFakePve({ nodes: ['n2'], network: { n2: { physical: ['eno1', 'enp2s0'] } } });
});
afterEach(() => fake.stop());

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const lastLine = (text: string) => text.split('\n').pop();
const writes = () => fake.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

type Spec = { iface: string; type: string; options: Record<string, unknown>; after?: string[] };
const objects = (specs: readonly Spec[]) =>
  Object.fromEntries(
    specs.map(({ after = [], ...spec }) => [
      spec.iface,
      { kind: 'network-interface', spec: { node: 'n2', ...spec }, after },
    ]),
  );
const plan = (specs: readonly Spec[]) => invokeBatch(pveDomain(), target(), objects(specs), env);
const apply = (specs: readonly Spec[]) => invokeBatchApply(pveDomain(), target(), objects(specs), env);
const editRunning = (edit: (running: string) => string) =>
  fake.setInterfacesFiles('n2', { running: edit(fake.interfacesFiles('n2').running) });

test('a bridge on a port holding a static address fails the plan and the apply in the same words', async () => {
  editRunning((running) =>
    running.replace('iface enp2s0 inet manual', 'iface enp2s0 inet static\n\taddress 10.20.0.2/24'),
  );
  const declared = [{ iface: 'vmbr1', type: 'bridge', options: { bridge_ports: ['enp2s0'], cidr: '10.20.0.2/24' } }];
  const refusal = "bridge vmbr1's port enp2s0 holds a static address, which PVE's writer refuses on a bridge port";
  const planned = await plan(declared);
  expect([planned.code, lastLine(planned.stderr)]).toEqual([
    1,
    `batch read: Network interfaces break a rule of PVE's writer: on n2: ${refusal}; PVE's writer refuses any ` +
      'stage on a node where one holds, so nothing can be applied there. Fix it on the node or where this stack ' +
      'declares that interface; then plan again',
  ]);
  fake.requests.length = 0;
  const applied = await apply(declared);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(`interface vmbr1 on n2 cannot be staged: ${refusal}, and PVE's writer refuses`);
  expect(writes()).toEqual([]);
});

test('a port two hand-made interfaces list fails the plan of any stage on that node', async () => {
  editRunning(
    (running) => `${running}\niface vmbr9 inet manual\n\tbridge-ports eno1\n\tbridge-stp off\n\tbridge-fd 0\n`,
  );
  const declared = [{ iface: 'vmbr1', type: 'bridge', options: { bridge_ports: ['enp2s0'] } }];
  const planned = await plan(declared);
  expect([planned.code, lastLine(planned.stderr)]).toEqual([
    1,
    "batch read: Network interfaces break a rule of PVE's writer: on n2: port eno1 is listed by both vmbr0 and " +
      "vmbr9, which PVE's writer refuses; PVE's writer refuses any stage on a node where one holds, so nothing can " +
      'be applied there. Fix it on the node or where this stack declares that interface; then plan again',
  ]);
  fake.requests.length = 0;
  expect((await apply(declared)).code).toBe(1);
  expect(writes()).toEqual([]);
});

test('a bond slave that is a bridge fails the plan and the apply in the same words', async () => {
  const declared = [{ iface: 'bond0', type: 'bond', options: { slaves: ['vmbr0'] } }];
  const refusal = "bond bond0's slave vmbr0 is a bridge, and PVE's writer takes only a NIC or a bond as a bond slave";
  const planned = await plan(declared);
  expect([planned.code, lastLine(planned.stderr)]).toEqual([
    1,
    `batch read: Network interfaces break a rule of PVE's writer: on n2: ${refusal}; PVE's writer refuses any ` +
      'stage on a node where one holds, so nothing can be applied there. Fix it on the node or where this stack ' +
      'declares that interface; then plan again',
  ]);
  fake.requests.length = 0;
  const applied = await apply(declared);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(`interface bond0 on n2 cannot be staged: ${refusal}, and PVE's writer refuses`);
  expect(writes()).toEqual([]);
});

test('a declared bond that another declared bond takes as a slave plans in sync once applied', async () => {
  const declared: Spec[] = [
    { iface: 'bond0', type: 'bond', options: { slaves: ['enp2s0'] } },
    { iface: 'bond1', type: 'bond', options: { slaves: ['bond0'] }, after: ['bond0'] },
  ];
  expect((await plan(declared)).code).toBe(0);
  expect((await apply(declared)).code).toBe(0);
  const applied = await apply(declared);
  expect([applied.code, lastLine(applied.stderr)]).toEqual([
    0,
    'bond1: interface bond1 on n2: in sync, nothing to stage',
  ]);
  const again = await plan(declared);
  expect([again.code, again.result?.['bond0.summary'], again.result?.['.in_sync']]).toEqual([
    0,
    'interface bond0 on n2 is in sync',
    'true',
  ]);
});
