/**
 * How a node brings a declared interface up (`inet dhcp`, an `inet6 auto` stanza) against the fake PVE, faithful
 * to PVE's update, which sets `method`, `method6` and `families` from the PUT's own address fields alone ([PM]
 * PVE/API2/Network.pm update_network). Regression: the plan was in sync for a bridge a hand had switched to DHCP or
 * given SLAAC (the row holds no cidr either way), and an apply of another field (its comments) turned DHCP off and
 * dropped the inet6 stanza under a plan that named only the comments. Now the plan names them, and the apply does
 * what it said.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { call } from '../../fakes/pve/test-client';
import { type ApplyEntry, invoke, invokeBatch } from '../../support/run-handler';
import { VirtualClock } from '../../support/virtual-clock';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

let fake: FakePve;
let clock: VirtualClock;
beforeEach(async () => {
  clock = new VirtualClock();
  fake = await startFakePve({ nodes: ['n3'], now: clock.now, network: { n3: { physical: ['eno1', 'enp2s0'] } } });
});
afterEach(() => fake.stop());

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const net = { nodes: ['n3'], timeoutSeconds: 30, interfaces: { n3: ['vmbr1'] }, reloadForeignChanges: false };
const bridge = (options: object = {}) => ({
  node: 'n3',
  iface: 'vmbr1',
  type: 'bridge',
  options: { bridge_ports: ['enp2s0'], autostart: true, ...options },
});
const plan = async (declared: object) => {
  const objects: Record<string, ApplyEntry> = {
    net: { kind: 'network-apply', spec: net },
    vmbr1: { kind: 'network-interface', spec: declared },
  };
  return (await invokeBatch(pveDomain(), target(), objects, env)).result ?? {};
};
/** The interface staged, then reloaded, as the stack's apply does. */
const apply = async (declared: object) => {
  expect(await invoke(pveDomain(), 'network-interface', 'apply', target(), declared, env, clock)).toMatchObject({
    code: 0,
  });
  expect(await invoke(pveDomain(), 'network-apply', 'apply', target(), net, env, clock)).toMatchObject({ code: 0 });
  return fake.interfacesFiles('n3').running;
};
/** vmbr1 created and reloaded by the stack, then its running stanza edited by hand. */
const editedByHand = async (edit: (running: string) => string) => {
  const made = await call(fake.url, 'POST', '/nodes/n3/network', {
    form: { iface: 'vmbr1', type: 'bridge', bridge_ports: 'enp2s0', autostart: '1' },
  });
  expect(made.status).toBe(200);
  const running = await apply(bridge());
  expect(running).toContain('iface vmbr1 inet manual');
  fake.setInterfacesFiles('n3', { running: edit(running) });
};

test('a bridge switched to DHCP by hand reads so, and the apply sets it back to manual as the plan said', async () => {
  await editedByHand((running) => running.replace('iface vmbr1 inet manual', 'iface vmbr1 inet dhcp'));
  const declared = bridge({ comments: 'lab' });
  expect(await plan(declared)).toMatchObject({
    'vmbr1.in_sync': 'false',
    'vmbr1.summary': 'interface vmbr1 on n3 differs: comments is unset, want "lab"; method is "dhcp", want "manual"',
  });
  expect(await plan(bridge())).toMatchObject({
    'vmbr1.summary': 'interface vmbr1 on n3 differs: method is "dhcp", want "manual"',
  });
  const running = await apply(declared);
  expect(running).toContain('iface vmbr1 inet manual');
  expect(running).not.toContain('inet dhcp');
  expect(await plan(declared)).toMatchObject({ 'vmbr1.in_sync': 'true', '.in_sync': 'true' });
});

test('an inet6 stanza added by hand reads so, and the apply drops it as the plan said', async () => {
  await editedByHand((running) =>
    running.replace(/(iface vmbr1 inet manual\n(?:\t.*\n)*)/, '$1\niface vmbr1 inet6 auto\n\taccept_ra 2\n'),
  );
  expect(await plan(bridge())).toMatchObject({
    'vmbr1.in_sync': 'false',
    'vmbr1.summary':
      'interface vmbr1 on n3 differs: method6 is "auto", want "manual"; families is ["inet","inet6"], want ["inet"]',
  });
  const running = await apply(bridge({ comments: 'lab' }));
  expect(running).not.toContain('inet6');
  expect(await plan(bridge({ comments: 'lab' }))).toMatchObject({ 'vmbr1.in_sync': 'true' });
});

test('a declared IPv6 address reads in sync with the stanza PVE writes for it', async () => {
  const declared = bridge({ cidr6: 'fd00::2/64' });
  const made = await call(fake.url, 'POST', '/nodes/n3/network', {
    form: { iface: 'vmbr1', type: 'bridge', bridge_ports: 'enp2s0', autostart: '1', cidr6: 'fd00::2/64' },
  });
  expect(made.status).toBe(200);
  expect(await apply(declared)).toContain('iface vmbr1 inet6 static');
  expect(await plan(declared)).toMatchObject({ 'vmbr1.in_sync': 'true' });
});
