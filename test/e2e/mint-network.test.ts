/**
 * Tokens minted per run around a network reload (issue 19 items 2 and 3), with real terraform or OpenTofu on
 * examples/network.ts given `mint`, against the fake PVE that creates and removes tokens and keeps each task to its
 * owner by PVE's rules: one apply that stages and reloads two nodes mints one read token and one provision token for
 * the cluster, and every poll of each reload's task carries the token that started it. The provision user holds
 * Sys.Modify alone on the nodes, no Sys.Audit, so a poll by any other token is refused (shown with a second token of
 * either user): a run that minted a token per request, or polled with the read token, would fail here. No minted
 * token is left, and the next plan is clean.
 */
import { readFileSync } from 'node:fs';
import type { TokenGrant } from '../fakes/pve/server';
import { call } from '../fakes/pve/test-client';
import { usePveProject } from '../support/pve-project';

const BOOT_APPLY = 'PVEAPIToken=boot@pve!apply=e2e-boot-apply';
const BOOT_READ = 'PVEAPIToken=boot@pve!read=e2e-boot-read';
const tokens: Record<string, TokenGrant> = {
  'boot@pve!read': { secret: 'e2e-boot-read', privileges: 'none', userModify: ['cdktf-read'] },
  'boot@pve!apply': { secret: 'e2e-boot-apply', privileges: 'none', userModify: ['cdktf-provision'] },
};
const users = {
  // A plan lists interfaces (no privilege) and sees bridges with SDN.Audit.
  // Sys.Audit on the nodes lists the apply's reload tasks (a failed one stays drift, issue 26).
  'cdktf-read@pve': { privileges: 'none', nodes: { n2: 'audit', n3: 'audit' }, sdnAudit: true, groups: ['cdktf-read'] },
  // Sys.Audit on / for the health gate; on the nodes, an ACL of Sys.Modify alone replaces it: no Sys.Audit there.
  'cdktf-apply@pve': {
    privileges: 'audit',
    nodes: { n2: 'modify-only', n3: 'modify-only' },
    sdnAudit: true,
    groups: ['cdktf-provision'],
  },
} as const;

jest.setTimeout(120_000);

const pve = usePveProject('build/examples/network.js', 'network', {
  tokens,
  users,
  nodes: ['n1', 'n2', 'n3'],
  env: {
    HOMELAB_EXAMPLE_READ_TOKEN_ENV: 'PVE_READ',
    HOMELAB_EXAMPLE_MINT: 'cdktf-read@pve,cdktf-apply@pve',
    HOMELAB_EXAMPLE_TIMEOUT_SECONDS: '3',
    PVE_READ: 'boot@pve!read=e2e-boot-read',
    PROXMOX_VE_API_TOKEN: 'boot@pve!apply=e2e-boot-apply',
  },
});

/** `POST|DELETE <user> by <bootstrap>` for each token request since `from`. */
const mintsSince = (from: number) =>
  pve()
    .fake.requests.slice(from)
    .filter((r) => r.path.includes('/token/'))
    .map((r) => `${r.method} ${decodeURIComponent(r.path.split('/')[5] ?? '')} by ${r.auth}`);

/** GET `path` with a new token of `user` (privsep=0: the user's rights), which is removed after. */
const asSecondToken = async (user: string, path: string) => {
  const { fake, env } = pve();
  // Each bootstrap may mint only for its role's user (User.Modify on that user's group alone).
  const boot = user === 'cdktf-read@pve' ? BOOT_READ : BOOT_APPLY;
  const ca = readFileSync(env.PROXMOX_VE_CA_FILE!, 'utf8');
  const tokenPath = `/access/users/${encodeURIComponent(user)}/token/second`;
  const created = await call(fake.url, 'POST', tokenPath, { auth: boot, ca, form: { privsep: '0' } });
  const auth = `PVEAPIToken=${user}!second=${created.body.data.value}`;
  const answer = await call(fake.url, 'GET', path, { auth, ca });
  await call(fake.url, 'DELETE', tokenPath, { auth: boot, ca });
  return `${answer.status} ${answer.reason}`;
};

test('an apply reloading two nodes mints a token per read and per apply, polls each task with its owner', async () => {
  const { fake, project } = pve();
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(fake.interfacesFiles('n3').running).toContain('iface vmbr1');
  // The plan's read, then the apply's recheck of the objects it read absent (README, Adoption), then the apply.
  expect(mintsSince(0)).toEqual([
    'POST cdktf-read@pve by boot@pve!read',
    'DELETE cdktf-read@pve by boot@pve!read',
    'POST cdktf-read@pve by boot@pve!read',
    'DELETE cdktf-read@pve by boot@pve!read',
    'POST cdktf-apply@pve by boot@pve!apply',
    'DELETE cdktf-apply@pve by boot@pve!apply',
  ]);
  const upids = fake.tasks();
  expect(upids.map((upid) => upid.split(':')[1])).toEqual(['n2', 'n3']);
  const owners = upids.map((upid) => {
    const owner = upid.split(':')[7];
    const polls = fake.requests.filter((r) => decodeURIComponent(r.path).includes(`/tasks/${upid}/`));
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.filter((r) => r.auth !== owner)).toEqual([]);
    return owner;
  });
  // One lease for the whole apply: both reloads and their polls by the one minted provision token.
  expect(new Set(owners).size).toBe(1);
  expect(owners[0]).toMatch(/^cdktf-apply@pve!homelab-write-[0-9a-f]{12}$/);
  expect(fake.tokenIds()).toEqual(Object.keys(tokens).sort());
  // Without Sys.Audit on the node, any other token is refused the task: a second mint of the apply user.
  // The read user holds Sys.Audit on the nodes, which lists the reload tasks to a plan (issue 26).
  expect(await asSecondToken('cdktf-apply@pve', `/nodes/n2/tasks/${upids[0]}/status`)).toBe(
    '403 Permission check failed (/nodes/n2, Sys.Audit)',
  );
  expect(await asSecondToken('cdktf-read@pve', `/nodes/n2/tasks/${upids[0]}/status`)).toBe('200 OK');
  expect(fake.tokenIds()).toEqual(Object.keys(tokens).sort());
});

test('the next plan is clean, minting one read token and leaving none', async () => {
  const { fake, project } = pve();
  const from = fake.requests.length;
  expect(await project.plan('plan (clean)')).toMatchObject({ code: 0 });
  expect(mintsSince(from)).toEqual(['POST cdktf-read@pve by boot@pve!read', 'DELETE cdktf-read@pve by boot@pve!read']);
  expect(fake.tokenIds()).toEqual(Object.keys(tokens).sort());
});
