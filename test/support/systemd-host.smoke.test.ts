// Smoke test of the real systemd test host: boots it, checks the systemctl states the systemd domain relies on
// (auto-restart is "activating", a missing unit is LoadState=not-found with exit 0) and that host-key pinning bites.
import { Client } from 'ssh2';
import { fingerprintOf } from './ssh-fingerprint';
import { connectPinned, execOn } from './ssh-client';
import { startSystemdHost, SystemdHost } from './systemd-host';

jest.setTimeout(120_000);

const PROPS = 'Id,LoadState,ActiveState,SubState,UnitFileState,NeedDaemonReload';
const parse = (out: string): Record<string, string> =>
  Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let host: SystemdHost;

beforeAll(async () => {
  const t0 = Date.now();
  host = await startSystemdHost();
  console.log(`systemd host ready on 127.0.0.1:${host.port} in ${Date.now() - t0} ms`);
});

afterAll(async () => {
  const t0 = Date.now();
  await host?.stop();
  console.log(`systemd host stopped in ${Date.now() - t0} ms`);
});

test('systemctl show of a running unit, over ssh2', async () => {
  const r = await host.exec(`systemctl show -p ${PROPS} systemd-journald.service`);
  expect(r.code).toBe(0);
  const version = (await host.exec('systemctl --version')).stdout.split('\n')[0];
  console.log(`${version}\n${r.stdout}`);
  expect(parse(r.stdout)).toMatchObject({
    Id: 'systemd-journald.service',
    LoadState: 'loaded',
    ActiveState: 'active',
    SubState: 'running',
    NeedDaemonReload: 'no',
  });
});

test('a crash-looping Restart=on-failure unit reads activating/auto-restart', async () => {
  const unit = 'cdktf-smoke-false.service';
  const body = '[Unit]\nDescription=always fails\n[Service]\nExecStart=/bin/false\nRestart=on-failure\nRestartSec=2\n';
  const w = await host.exec(`printf '%s' '${body}' > /etc/systemd/system/${unit} && systemctl daemon-reload`);
  expect(w).toMatchObject({ code: 0, stderr: '' });
  const start = await host.exec(`systemctl start ${unit}`);
  const seen: string[] = [];
  let state: Record<string, string> = {};
  for (const t0 = Date.now(); Date.now() - t0 < 5000; await sleep(50)) {
    state = parse((await host.exec(`systemctl show -p ${PROPS},Result,NRestarts ${unit}`)).stdout);
    const s = `${state.ActiveState}/${state.SubState}`;
    if (seen[seen.length - 1] !== s) seen.push(s);
    if (s === 'activating/auto-restart') break;
  }
  const checks = await host.exec(
    `systemctl is-active ${unit}; echo "is-active rc=$?"; systemctl is-failed ${unit}; echo "is-failed rc=$?"`,
  );
  console.log(
    `start exit ${start.code}; states seen: ${seen.join(' -> ')}\n${JSON.stringify(state)}\n${checks.stdout}`,
  );
  expect(start.code).toBe(0);
  expect(state).toMatchObject({
    LoadState: 'loaded',
    ActiveState: 'activating',
    SubState: 'auto-restart',
    Result: 'exit-code',
  });
  await host.exec(`systemctl stop ${unit}`);
});

test('a missing unit reads LoadState=not-found with exit 0', async () => {
  const r = await host.exec(`systemctl show -p ${PROPS} cdktf-no-such-unit.service`);
  const ie = await host.exec('systemctl is-enabled cdktf-no-such-unit.service');
  const ia = await host.exec('systemctl is-active cdktf-no-such-unit.service');
  console.log(
    `show exit ${r.code}:\n${r.stdout}is-enabled exit ${ie.code} ${JSON.stringify(ie)}\n` +
      `is-active exit ${ia.code} ${ia.stdout}`,
  );
  expect(r.code).toBe(0);
  expect(parse(r.stdout)).toMatchObject({ LoadState: 'not-found', ActiveState: 'inactive' });
});

test('the pinned host key is what the server presents, and a wrong pin fails', async () => {
  let presented = '';
  const seen = await new Promise<string>((resolve, reject) => {
    const c = new Client();
    c.once('ready', () => {
      c.end();
      resolve(presented);
    }).once('error', reject);
    c.connect({
      host: '127.0.0.1',
      port: host.port,
      username: 'root',
      privateKey: host.privateKey,
      hostVerifier: (key: Buffer) => {
        presented = fingerprintOf(key);
        return true;
      },
    });
  });
  const openssh = await host.exec('ssh-keygen -lf /etc/ssh/cdktf-homelab/host_key');
  expect(seen).toBe(host.hostKeyFingerprint);
  expect(openssh.stdout.split(' ')[1]).toBe(host.hostKeyFingerprint); // OpenSSH's own fingerprint of the key
  const wrong = 'SHA256:' + 'A'.repeat(43);
  await expect(
    connectPinned({ port: host.port, username: 'root', privateKey: host.privateKey, fingerprint: wrong }),
  ).rejects.toThrow(/verification failed/i);
});

test('the deploy user logs in with the same key and has passwordless sudo', async () => {
  const c = await connectPinned({
    port: host.port,
    username: host.sudoUser,
    privateKey: host.privateKey,
    fingerprint: host.hostKeyFingerprint,
  });
  try {
    const r = await execOn(c, 'id -un; sudo -n id -un');
    expect(r).toMatchObject({ code: 0, stdout: 'deploy\nroot\n' });
  } finally {
    c.end();
  }
});

// The image leaves out systemd's generators (a daemon-reload ran all twelve: 0.5-0.8 s against 0.14-0.29 s without)
// and pam_motd (70-110 ms a login); the benches boot with `stock: true`, so a reload or a login costs what it costs
// on a real host.
test('the tests boot without generators or motd, the benches with both', async () => {
  const count = (dir: string) => `ls ${dir} | wc -l`;
  const facts = [
    'find /run/systemd/generator -type l 2>/dev/null | wc -l',
    count('/lib/systemd/system-generators'),
    count('/etc/systemd/system-generators'),
    'grep -c pam_motd /etc/pam.d/sshd || true',
  ].join('; ');
  const numbers = async (h: SystemdHost) => (await h.exec(facts)).stdout.trim().split('\n').map(Number);
  const [links, shipped, masked, motd] = await numbers(host);
  expect([links, masked, motd]).toEqual([0, shipped, 0]);
  expect(shipped).toBeGreaterThan(0);
  const stock = await startSystemdHost({ stock: true });
  try {
    const [stockLinks, , stockMasked, stockMotd] = await numbers(stock);
    expect(stockMasked).toBe(0);
    expect(stockLinks).toBeGreaterThan(0); // the fstab generator's systemd-remount-fs.service link, at least
    expect(stockMotd).toBeGreaterThan(0);
  } finally {
    await stock.stop();
  }
});
