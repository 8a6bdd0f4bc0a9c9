/**
 * The README's PVE privileges for the network kinds, split by role (issue 19 items 1 and 4), with real terraform or
 * OpenTofu on examples/network.ts given `readTokenEnv`, against the fake PVE that checks each token's privileges as
 * PVE does: the apply converges with a write token holding only Sys.Modify on the two nodes and Sys.Audit on `/`;
 * a plan with ONLY a read token holding nothing but SDN.Audit is clean, then shows a hand edit in words; the write
 * token under the read name still plans; a read token without SDN.Audit reads the bridges as unreadable naming the
 * privilege and its variable, never as absent; a write token without Sys.Audit on `/` stops at the health gate
 * naming it, having reloaded nothing.
 */
import type { TokenGrant } from '../fakes/pve/server';
import { onlyTokens, planWith, tokensSince, usePveProject } from '../support/pve-project';

const WRITE = 'ops@pve!net=e2e-write-7171';
const READ = 'sdn-read@pve!plan=e2e-read-8181';
const tokens: Record<string, TokenGrant> = {
  // Sys.Audit on / (the health gate's cluster/status), Sys.Modify on /nodes/n2 and /nodes/n3, SDN.Audit.
  'ops@pve!net': { secret: 'e2e-write-7171', privileges: 'audit', nodes: { n2: 'modify', n3: 'modify' } },
  // SDN.Audit (PVE's PVESDNUser role has it): GET nodes/{node}/network asks for no privilege; Sys.Audit on
  // the nodes lists the write token's reload tasks (a failed one stays drift, issue 26).
  'sdn-read@pve!plan': {
    secret: 'e2e-read-8181',
    privileges: 'none',
    nodes: { n2: 'audit', n3: 'audit' },
    sdnAudit: true,
  },
  'blind@pve!plan': { secret: 'e2e-blind-9191', privileges: 'none', sdnAudit: false },
  'ops@pve!nodes-only': {
    secret: 'e2e-nodes-9292',
    privileges: 'none',
    nodes: { n2: 'modify', n3: 'modify' },
    sdnAudit: true,
  },
};

jest.setTimeout(300_000);

const pve = usePveProject('build/examples/network.js', 'network', {
  tokens,
  nodes: ['n1', 'n2', 'n3'],
  env: { HOMELAB_EXAMPLE_READ_TOKEN_ENV: 'PVE_READ', HOMELAB_EXAMPLE_TIMEOUT_SECONDS: '3' },
});
const words = (text: string) => text.replace(/\s+/g, ' ');
/** `text` (an interfaces file) without the stanza of `iface`, as a human deleting it by hand would leave it. */
const withoutStanza = (text: string, iface: string) => {
  let dropping = false;
  const kept = text.split('\n').filter((line) => {
    if (/^\S/.test(line)) dropping = line === `auto ${iface}` || line.startsWith(`iface ${iface} `);
    return !dropping;
  });
  return kept.join('\n');
};

test('the apply converges with both tokens, and a plan with ONLY the SDN.Audit token is clean', async () => {
  const { fake, project } = pve();
  onlyTokens(pve(), { PROXMOX_VE_API_TOKEN: WRITE, PVE_READ: READ });
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(fake.interfacesFiles('n3').running).toContain('iface vmbr1');
  const writers = fake.requests.filter((r) => r.method !== 'GET').map((r) => r.auth);
  expect([...new Set(writers)]).toEqual(['ops@pve!net']);
  const from = fake.requests.length;
  expect(await planWith(pve(), { PVE_READ: READ })).toMatchObject({ code: 0, stderr: '' });
  expect(tokensSince(pve(), from)).toEqual(['sdn-read@pve!plan']);
});

test('a plan with ONLY the read token shows a bridge deleted by hand, in words', async () => {
  const { fake } = pve();
  fake.setInterfacesFiles('n3', { running: withoutStanza(fake.interfacesFiles('n3').running, 'vmbr1') });
  const drift = await planWith(pve(), { PVE_READ: READ });
  expect(drift.code).toBe(2);
  expect(words(drift.stdout)).toContain('interface vmbr1 on n3 is absent');
});

test('the write token given under the read name still plans', async () => {
  const from = pve().fake.requests.length;
  const drift = await planWith(pve(), { PVE_READ: WRITE });
  expect(drift.code).toBe(2);
  expect(tokensSince(pve(), from)).toEqual(['ops@pve!net']);
});

test('a read token without SDN.Audit reads bridges as unreadable, naming the privilege and its variable', async () => {
  const blind = await planWith(pve(), { PVE_READ: 'blind@pve!plan=e2e-blind-9191' });
  expect(blind.code).toBe(2);
  expect(words(blind.stdout)).toContain(
    'interface vmbr1 on n2 cannot be read: PVE lists a bridge only to a token holding SDN.Audit (or SDN.Use) on ' +
      '/sdn/zones/localnetwork/vmbr1, and the token in PVE_READ holds neither',
  );
  expect(words(blind.stdout)).not.toContain('vmbr1 on n2 is absent');
});

test('a write token without Sys.Audit on / stops at the health gate naming it, reloading nothing', async () => {
  const { fake, project } = pve();
  onlyTokens(pve(), { PROXMOX_VE_API_TOKEN: 'ops@pve!nodes-only=e2e-nodes-9292', PVE_READ: READ });
  const from = fake.requests.length;
  const applied = await project.terraform('apply', '-auto-approve', '-no-color');
  expect(applied.code).toBe(1);
  expect(words(`${applied.stdout}\n${applied.stderr}`)).toContain(
    'PVE answered 403: Permission check failed (/, Sys.Audit); the token in PROXMOX_VE_API_TOKEN lacks that privilege',
  );
  // Sys.Modify on /nodes/n3 was enough to stage the bridge; the reload is what the gate held back.
  expect(fake.interfacesFiles('n3').staged).toContain('iface vmbr1');
  const reloads = fake.requests.slice(from).filter((r) => r.method === 'PUT' && /network$/.test(r.path));
  expect(reloads).toEqual([]);
});
