/**
 * A read login beside the privileged one (issue 19 item 1) on real systemd 252 over real SSH: a
 * plain user with no sudo rule reads units and their files, so a plan run with only its key's
 * variable set shows drift; the apply logs in as root with the write key; the read user itself
 * cannot write (sudo refuses it, naming the line it would need); a root-only file fails the read
 * naming the login, its key's variable and the file, never read as absent; a key the host refuses is named
 * by its variable and user; one login keeps serving both. The stack's marks: an interrupted apply's intent
 * is readable, so the plan names the pending restart and never calls the object foreign (issue 26); a mark
 * behind a directory the login may not search, at any depth, fails the plan naming it (issue 27).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../../../src/core/canonical';
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import { intentStep } from '../../../src/linux/root-helper';
import { dropInIntentPath, intentRest, unitIntentPath } from '../../../src/linux/unit-intent';
import { type ApplyEntry, invoke, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { generateKey } from '../../support/ssh-client';
import { linuxDomain } from '../../../handlers/linux/domain';
import { askRootHelper, hostTarget, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();

/** The read user's own key pair, which root does not trust: a login with it can only be watcher's. */
let watcherKey: { private: string; public: string };
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'watcher-key-'));
  watcherKey = generateKey(join(dir, 'key'));
  rmSync(dir, { recursive: true });
  await host().exec(
    'useradd -m -s /bin/sh watcher && install -d -o watcher -m 700 /home/watcher/.ssh && ' +
      `echo '${watcherKey.public}' > /home/watcher/.ssh/authorized_keys && ` +
      'chown watcher /home/watcher/.ssh/authorized_keys',
  );
});

const service = (description: string) =>
  `[Unit]\nDescription=${description}\n\n` +
  '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
/** Root writes with ROOT_KEY; watcher, with no sudo rule, reads with WATCHER_KEY. */
const target = () =>
  hostTarget(host(), { privateKeyEnv: 'ROOT_KEY', readUser: 'watcher', readPrivateKeyEnv: 'WATCHER_KEY' });
const readEnv = () => ({ WATCHER_KEY: watcherKey.private });
const bothEnv = () => ({ ROOT_KEY: host().privateKey, WATCHER_KEY: watcherKey.private });

test('a plan with only the read key (which root does not trust) reads as watcher and shows drift', async () => {
  const spec = unitSpec('watched.service', service('watched'));
  const plan = await invokeBatch(linuxDomain(), target(), { svc: { kind: 'systemd-unit', spec } }, readEnv());
  expect(plan).toMatchObject({ code: 0 });
  expect(plan.result?.['svc.summary']).toBe(`unit watched.service on 127.0.0.1:${host().port} is absent`);
  expect(await invoke(linuxDomain(), 'systemd-unit', 'apply', target(), spec, bothEnv())).toMatchObject({ code: 0 });
  await host().exec("sed -i 's/Description=watched/Description=edited/' /etc/systemd/system/watched.service");
  const drift = await invokeBatch(linuxDomain(), target(), { svc: { kind: 'systemd-unit', spec } }, readEnv());
  expect(drift.result?.['svc.in_sync']).toBe('false');
  expect(drift.result?.['svc.summary']).toMatch(
    /differs: file is "not the declared content \(\d+ bytes\)", want "sha256:\w+"; NeedDaemonReload is "yes"/,
  );
});

test('an apply with only the read key fails naming the write key variable, having logged in nowhere', async () => {
  const spec = unitSpec('unkeyed.service', service('unkeyed'));
  const applied = await invoke(linuxDomain(), 'systemd-unit', 'apply', target(), spec, readEnv());
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(/ROOT_KEY/);
  expect((await host().exec('test -e /etc/systemd/system/unkeyed.service; echo $?')).stdout.trim()).toBe('1');
});

test('the read user cannot write: as the write login it is refused by sudo and changes nothing', async () => {
  const spec = unitSpec('refused.service', service('refused'));
  const asWatcher = hostTarget(host(), { user: 'watcher', sudo: true });
  const applied = await invoke(linuxDomain(), 'systemd-unit', 'apply', asWatcher, spec, {
    TEST_SSH_KEY: host().privateKey,
  });
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    /sudo on 127\.0\.0\.1:\d+ refused to run the root helper: sudo: a password is required; /,
  );
  expect((await host().exec('test -e /etc/systemd/system/refused.service; echo $?')).stdout.trim()).toBe('1');
});

test('a file the read user may not read fails the plan naming the login, its variable and the file', async () => {
  const spec = unitSpec('private.service', service('private'));
  expect(await invoke(linuxDomain(), 'systemd-unit', 'apply', target(), spec, bothEnv())).toMatchObject({ code: 0 });
  await host().exec('chmod 0600 /etc/systemd/system/private.service');
  const plan = await invokeBatch(linuxDomain(), target(), { svc: { kind: 'systemd-unit', spec } }, readEnv());
  expect(plan.code).toBe(1);
  expect(plan.stderr.replace(/\s+/g, ' ')).toContain(
    'watcher (the key in WATCHER_KEY) was refused read access to /etc/systemd/system/private.service',
  );
  await host().exec('chmod 0700 /etc/systemd/system');
  const hidden = await invokeBatch(linuxDomain(), target(), { svc: { kind: 'systemd-unit', spec } }, readEnv());
  await host().exec('chmod 0755 /etc/systemd/system');
  expect(hidden.stderr).toContain('refused read access to /etc/systemd/system/private.service');
});

test('a read key the host does not trust for the read user fails the plan naming its variable and user', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stranger-key-'));
  const stranger = generateKey(join(dir, 'key'));
  rmSync(dir, { recursive: true });
  const spec = unitSpec('untrusted.service', service('untrusted'));
  const plan = await invokeBatch(
    linuxDomain(),
    target(),
    { svc: { kind: 'systemd-unit', spec } },
    {
      WATCHER_KEY: stranger.private,
    },
  );
  expect(plan.code).toBe(1);
  expect(plan.stderr.replace(/\s+/g, ' ')).toContain('the host refused the key in WATCHER_KEY for user watcher');
});

test('one login still serves both: without a read user the plan reads with the write key', async () => {
  const spec = unitSpec('single.service', service('single'));
  const single = hostTarget(host(), { privateKeyEnv: 'ROOT_KEY' });
  const plan = await invokeBatch(
    linuxDomain(),
    single,
    { svc: { kind: 'systemd-unit', spec } },
    {
      ROOT_KEY: host().privateKey,
    },
  );
  expect(plan).toMatchObject({ code: 0 });
});

const DIR = '/etc/systemd/system';
const SLEEPER = '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
const plan = (objects: Record<string, ApplyEntry>) => invokeBatch(linuxDomain(), target(), objects, readEnv());
const apply = (objects: Record<string, ApplyEntry>) => invokeBatchApply(linuxDomain(), target(), objects, bothEnv());
const dropInOf = (unit: string): DropInSpec => ({
  unit,
  name: '10-env',
  directory: DIR,
  content: '[Service]\nEnvironment=V=1\n',
  startTimeoutSeconds: 90,
});

describe('an interrupted apply, read by a read login (issue 26)', () => {
  test('a new unit stopped after its intent and file reads as restart pending, never as foreign', async () => {
    const spec = unitSpec('cut-new.service', SLEEPER);
    const dropIn = dropInOf('cut-new.service');
    // What the apply leaves when killed after writing the files, before the records: the intents,
    // then the unit file and the drop-in, no record and no mark.
    const intents = await askRootHelper(host(), [
      intentStep(
        { sort: 'unit', directory: DIR, name: spec.name },
        intentRest({ unit: spec.name, sha256: sha256Hex(spec.content), restart: true }),
      ),
      intentStep(
        { sort: 'drop-in', ...dropIn },
        intentRest({ unit: spec.name, sha256: sha256Hex(dropIn.content), restart: true }),
      ),
    ]);
    expect(intents.code).toBe(0);
    await host().exec(
      `printf '%s' '${SLEEPER}' > ${DIR}/cut-new.service && mkdir -p ${DIR}/cut-new.service.d && ` +
        `printf '%s' '${dropIn.content}' > ${DIR}/cut-new.service.d/10-env.conf`,
    );
    const objects = {
      svc: { kind: 'systemd-unit', spec },
      env: { kind: 'systemd-drop-in', spec: dropIn, after: ['svc'] },
    };
    const read = await plan(objects);
    expect(read).toMatchObject({ code: 0 });
    for (const name of ['svc', 'env']) {
      expect(read.result?.[`${name}.summary`]).toMatch(/restart pending since an interrupted apply/);
      expect(read.result?.[`${name}.summary`]).not.toMatch(/not created by this stack/);
    }
    const modes = await host().exec(
      `stat -c '%a %n' /var/lib/cdktf-homelab/intents ${unitIntentPath(spec)} ${dropInIntentPath(dropIn)}`,
    );
    expect(modes.stdout.split('\n').map((line) => line.split(' ')[0])).toEqual(['755', '644', '644', '']);
    expect(await apply(objects)).toMatchObject({ code: 0 });
    expect((await plan(objects)).result?.['.summary']).toBe('all 2 objects are in sync');
  });

  test("an intent an earlier build left root-only is opened by the next apply's intents", async () => {
    const spec = unitSpec('cut-old.service', SLEEPER);
    await host().exec(
      'mkdir -p /var/lib/cdktf-homelab/intents/drop-ins && chmod -R 0700 /var/lib/cdktf-homelab/intents && ' +
        'umask 077 && echo "cdktf-homelab-intent since=1 sha256=- restart=pending unit=x" ' +
        '> /var/lib/cdktf-homelab/intents/left.service',
    );
    expect(await apply({ svc: { kind: 'systemd-unit', spec } })).toMatchObject({ code: 0 });
    const modes = await host().exec(
      'stat -c %a /var/lib/cdktf-homelab/intents /var/lib/cdktf-homelab/intents/drop-ins ' +
        '/var/lib/cdktf-homelab/intents/left.service',
    );
    expect(modes.stdout.trim().split('\n')).toEqual(['755', '755', '644']);
    await host().exec('rm -f /var/lib/cdktf-homelab/intents/left.service');
  });
});

describe('a mark the read login cannot read (issue 27)', () => {
  const spec = unitSpec('marked.service', SLEEPER);
  const dropIn = dropInOf('marked.service');
  const objects = {
    svc: { kind: 'systemd-unit', spec },
    env: { kind: 'systemd-drop-in', spec: dropIn, after: ['svc'] },
  };
  const MARK = `/var/lib/cdktf-homelab/drop-ins${DIR}/marked.service.d/10-env.conf`;
  beforeAll(async () => {
    expect(await apply(objects)).toMatchObject({ code: 0 });
  });

  test.each([
    ['/var/lib/cdktf-homelab/drop-ins', [MARK]],
    [`/var/lib/cdktf-homelab/drop-ins${DIR}/marked.service.d`, [MARK]],
    ['/var/lib/cdktf-homelab/restart-on', ['/var/lib/cdktf-homelab/restart-on/marked.service']],
    // The units are read first, and their read fails the plan.
    [
      '/var/lib/cdktf-homelab',
      ['/var/lib/cdktf-homelab/restart-on/marked.service', '/var/lib/cdktf-homelab/intents/marked.service'],
    ],
  ])('%s made root-only fails the plan naming %p, never foreign or in sync', async (dir, named) => {
    await host().exec(`chmod 0700 ${dir}`);
    const read = await plan(objects);
    await host().exec(`chmod 0755 ${dir}`);
    expect(read.code).toBe(1);
    expect(read.result).toBeUndefined();
    const said = read.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(`watcher (the key in WATCHER_KEY) was refused read access to ${named.join(', ')}:`);
    expect(said).toContain('search (x) access to every directory above it');
  });

  test('an intents directory made root-only is unreadable too; readable, the plan is in sync', async () => {
    await host().exec('mkdir -p /var/lib/cdktf-homelab/intents && chmod 0700 /var/lib/cdktf-homelab/intents');
    const hidden = await plan(objects);
    await host().exec('chmod 0755 /var/lib/cdktf-homelab/intents');
    expect(hidden.stderr).toContain('refused read access to /var/lib/cdktf-homelab/intents/marked.service');
    expect((await plan(objects)).result?.['.summary']).toBe('all 2 objects are in sync');
  });
});

// A drop-in in a directory the read login may not search: pid1 lists it (DropInPaths), the read login cannot stat
// it, the apply's login can. The plan's reading must not then take it for one added since (a refusal every apply).
test('a drop-in behind a directory the read login may not search refuses nothing: the unit starts', async () => {
  const spec = unitSpec('sealed.service', service('sealed'));
  expect(await invoke(linuxDomain(), 'systemd-unit', 'apply', target(), spec, bothEnv())).toMatchObject({ code: 0 });
  const dir = '/etc/systemd/system/sealed.service.d';
  await host().exec(
    `install -d -m 700 ${dir} && printf '[Service]\\nEnvironment=S=1\\n' > ${dir}/10-secret.conf && ` +
      'systemctl daemon-reload && systemctl stop sealed.service',
  );
  const objects: Record<string, ApplyEntry> = { sealed: { kind: 'systemd-unit', spec } };
  const plan = await invokeBatch(linuxDomain(), target(), objects, readEnv());
  expect(plan.result?.['sealed.summary']).toMatch(/differs: running is "inactive\/dead", want "running"/);
  const basis = { HOMELAB_BASIS: plan.result?.['.basis'] ?? '' };
  const applied = await invokeBatchApply(linuxDomain(), target(), objects, { ...bothEnv(), ...basis });
  expect(applied.stderr).not.toContain('cannot be applied as planned');
  expect(applied.code).toBe(0);
  expect((await host().exec('systemctl is-active sealed.service')).stdout.trim()).toBe('active');
});
