/**
 * PVE's writer dies (500) on a file where a bridge port holds a static address (`iface enp2s0 - ip address can't be
 * set on interface if bridged in vmbr1`) or a bond slave is neither a NIC nor a bond (`bond 'bond0' - wrong interface
 * type on slave 'vmbr0' ('bridge' != 'eth or bond')`), and it marks every bond slave `auto` ([PC] f665029
 * src/PVE/Network/Interfaces.pm:890-907, 1003-1029). Regression: the plan read such an interface as only absent or
 * changed, "apply converges it", and the apply failed on PVE's 500; a declared bond that another declared bond takes
 * as a slave, left without autostart, read `autostart is true, want false` on every plan and each apply's read-back
 * failed. Now the plan and the apply refuse the first two in the same words, and the third plans in sync.
 */
import { type DeclaredInterface, lastLine, useNetworkNode } from '../../support/pve-network-node';

const { fake, plan, apply, expectRefusedAlike } = useNetworkNode();

const editRunning = (edit: (running: string) => string) =>
  fake().setInterfacesFiles('n2', { running: edit(fake().interfacesFiles('n2').running) });
const planLine = (refusal: string) =>
  `batch read: Network interfaces break a rule of PVE's writer: on n2: ${refusal}; PVE's writer refuses any ` +
  'stage on a node where one holds, so nothing can be applied there. Fix it on the node or where this stack ' +
  'declares that interface; then plan again';
const applyText = (iface: string, refusal: string) =>
  `interface ${iface} on n2 cannot be staged: ${refusal}, and PVE's writer refuses`;

const STATIC_PORT = "bridge vmbr1's port enp2s0 holds a static address, which PVE's writer refuses on a bridge port";
const BRIDGE_SLAVE =
  "bond bond0's slave vmbr0 is a bridge, and PVE's writer takes only a NIC or a bond as a bond slave";
const SHARED_PORT = "port eno1 is listed by both vmbr0 and vmbr9, which PVE's writer refuses";

test.each([
  {
    what: 'a bridge on a port holding a static address fails the plan and the apply in the same words',
    running: (text: string) =>
      text.replace('iface enp2s0 inet manual', 'iface enp2s0 inet static\n\taddress 10.20.0.2/24'),
    declared: { iface: 'vmbr1', type: 'bridge', options: { bridge_ports: ['enp2s0'], cidr: '10.20.0.2/24' } },
    refusal: STATIC_PORT,
    applyText: applyText('vmbr1', STATIC_PORT),
  },
  {
    what: 'a port two hand-made interfaces list fails the plan of any stage on that node',
    running: (text: string) =>
      `${text}\niface vmbr9 inet manual\n\tbridge-ports eno1\n\tbridge-stp off\n\tbridge-fd 0\n`,
    declared: { iface: 'vmbr1', type: 'bridge', options: { bridge_ports: ['enp2s0'] } },
    refusal: SHARED_PORT,
    applyText: undefined,
  },
  {
    what: 'a bond slave that is a bridge fails the plan and the apply in the same words',
    running: (text: string) => text,
    declared: { iface: 'bond0', type: 'bond', options: { slaves: ['vmbr0'] } },
    refusal: BRIDGE_SLAVE,
    applyText: applyText('bond0', BRIDGE_SLAVE),
  },
])('$what', async ({ running, declared, refusal, applyText: applied }) => {
  editRunning(running);
  await expectRefusedAlike([declared], planLine(refusal), applied);
});

test('a declared bond that another declared bond takes as a slave plans in sync once applied', async () => {
  const declared: DeclaredInterface[] = [
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
