/**
 * Who a bootstrap token may mint for, by pve-access-control's checks (issue 27 item 9), against the
 * fake PVE: User.Modify on /access/groups passes userid-group for every user, root@pam included, so
 * such a bootstrap mints a privsep=0 root@pam token; User.Modify on /access/groups/<group> only
 * passes for that group's members, so a bootstrap granted on the provision and read users' groups
 * mints their tokens and is refused every other user's, root@pam's first.
 */
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { call } from '../../fakes/pve/test-client';

const tokens = {
  'boot@pve!apply': { secret: 'boot-apply', privileges: 'none', userModify: ['cdktf-provision'] },
  'boot@pve!read': { secret: 'boot-read', privileges: 'none', userModify: ['cdktf-read'] },
  'wide@pve!boot': { secret: 'wide-boot', privileges: 'none', userModify: true },
} as const;
const users = {
  'cdktf-apply@pve': { privileges: 'modify', groups: ['cdktf-provision'] },
  'cdktf-read@pve': { privileges: 'audit', groups: ['cdktf-read'] },
  'ops@pve': { privileges: 'modify', groups: ['ops'] },
  'boot@pve': { privileges: 'none' },
} as const;

let fake: FakePve;
beforeEach(async () => {
  fake = await startFakePve({ nodes: ['n1', 'n2'], tokens, users });
});
afterEach(() => fake.stop());

const mint = async (bootstrap: string, user: string) => {
  const res = await call(fake.url, 'POST', `/access/users/${encodeURIComponent(user)}/token/t1`, {
    auth: `PVEAPIToken=${bootstrap}`,
    form: { privsep: '0', expire: '0' },
  });
  return { status: res.status, minted: res.body?.data?.value as string | undefined };
};

test.each([
  ['the apply bootstrap', 'boot@pve!apply=boot-apply', 'cdktf-apply@pve', 'cdktf-read@pve'],
  ['the read bootstrap', 'boot@pve!read=boot-read', 'cdktf-read@pve', 'cdktf-apply@pve'],
])("%s, granted on its user's group only, mints that user's token and no other's", async (_, boot, own, other) => {
  expect((await mint(boot, own)).status).toBe(200);
  for (const user of [other, 'root@pam', 'ops@pve', 'boot@pve', 'nobody@pve']) {
    expect([user, (await mint(boot, user)).status]).toEqual([user, 403]);
  }
  expect(fake.tokenIds()).toContain(`${own}!t1`);
  expect(fake.tokenIds()).not.toContain('root@pam!t1');
});

test('a bootstrap granted on /access/groups mints a privsep=0 root@pam token, with root rights', async () => {
  const { status, minted } = await mint('wide@pve!boot=wide-boot', 'root@pam');
  expect(status).toBe(200);
  const res = await call(fake.url, 'POST', '/cluster/metrics/server/x1', {
    auth: `PVEAPIToken=root@pam!t1=${minted!}`,
    form: { type: 'graphite', server: '10.0.0.5', port: '2003' },
  });
  expect(res.status).toBe(200);
});
