/**
 * A declared file that systemd does not load, on real systemd 252 over SSH: a hand copy of a unit or a template in a
 * directory ranked higher, a file of an instance's own name, a same-name drop-in ranked higher. The plan
 * names the file systemd loads instead, and the apply refuses it, changing nothing, where both said in sync.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { UNIT_SEARCH_PATH } from '../../../src/linux/unit-directories';
import { templatePaths, templateStatus, withUnloadedDropIns } from '../../../src/linux/unloaded-drop-ins';
import { invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, instanceSpec, KEY_ENV, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });
const service = (variant: string) =>
  `[Unit]\nDescription=shadow\n[Service]\nEnvironment=V=${variant}\nExecStart=/bin/sleep infinity\n` +
  '[Install]\nWantedBy=multi-user.target\n';

/** The V= its running process was started with. */
const runningVariant = async (name: string) =>
  (
    await host().exec(
      `p=$(systemctl show -p MainPID --value -- ${name}); tr '\\0' '\\n' < /proc/$p/environ | sed -n 's/^V=//p'`,
    )
  ).stdout.trim();

/** Writes a file by hand, as an admin would, reloads and restarts `restart`. */
const byHand = (path: string, content: string, restart: string) =>
  host().exec(
    `mkdir -p "$(dirname ${path})" && printf '%s' '${content}' > ${path} && ` +
      `systemctl daemon-reload && systemctl restart ${restart}`,
  );

const applyBatch = (objects: Parameters<typeof invokeBatchApply>[2]) =>
  invokeBatchApply(linuxDomain(), hostTarget(host()), objects, env());
const readBatch = async (objects: Parameters<typeof invokeBatch>[2]) =>
  (await invokeBatch(linuxDomain(), hostTarget(host()), objects, env())).result ?? {};

// The audit's shadow A: `systemctl edit --full` leaves such a copy; the plan read in sync, apply said applied.
test('a unit shadowed by a hand copy in a directory ranked higher differs, and the apply refuses it', async () => {
  const spec = unitSpec('hf-shadow.service', service('declared'), { directory: '/usr/local/lib/systemd/system' });
  expect((await unit.run('apply', spec)).code).toBe(0);
  await byHand('/etc/systemd/system/hf-shadow.service', service('handmade'), 'hf-shadow.service');

  const read = await unit.run('read', spec);
  expect(read.result?.in_sync).toBe('false');
  expect(read.result?.summary).toContain(
    'shadowed: systemd loads /etc/systemd/system/hf-shadow.service instead of ' +
      '/usr/local/lib/systemd/system/hf-shadow.service, a file the stack does not manage: ' +
      'remove it, or declare directory /etc/systemd/system; the apply refuses it until then',
  );
  const applied = await unit.run('apply', spec);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('hf-shadow.service on 127.0.0.1');
  expect(applied.stderr).toContain('is shadowed: systemd loads /etc/systemd/system/hf-shadow.service');
  expect(applied.stderr).toContain('nothing was changed');
  expect(await runningVariant('hf-shadow.service')).toBe('handmade');
});

// The audit's D: the instance's own file wins over its template wherever it lies.
test('an instance shadowed by a hand file of its own name differs, and the apply refuses it', async () => {
  const objects = {
    t: {
      kind: 'systemd-unit',
      spec: unitSpec('hf-sp@.service', service('template'), { enabled: false, started: false }),
    },
    i: {
      kind: 'systemd-instance',
      spec: instanceSpec('hf-sp@a.service', { template: 'hf-sp@.service' }),
      after: ['t'],
    },
  };
  expect((await applyBatch(objects)).code).toBe(0);
  await byHand('/etc/systemd/system/hf-sp@a.service', service('handmade'), 'hf-sp@a.service');

  const read = await readBatch(objects);
  expect(read['t.in_sync']).toBe('true');
  expect(read['i.in_sync']).toBe('false');
  expect(read['i.summary']).toContain(
    'shadowed: systemd loads /etc/systemd/system/hf-sp@a.service instead of /etc/systemd/system/hf-sp@.service, ' +
      'a file the stack does not manage: remove it',
  );
  const applied = await applyBatch({ i: objects.i });
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('hf-sp@a.service on 127.0.0.1');
  expect(applied.stderr).toContain('is shadowed: systemd loads /etc/systemd/system/hf-sp@a.service');
  expect(await runningVariant('hf-sp@a.service')).toBe('handmade');
});

// `show` refuses a template's name: it read in sync and its apply wrote a file its instances never load (measured).
test.each([
  ['a copy in /run/systemd/system.control', 'hf-tr', '/etc/systemd/system', '/run/systemd/system.control', true],
  ['a hand copy in /etc', 'hf-tu', '/usr/local/lib/systemd/system', '/etc/systemd/system', true],
  ['a copy in /run/systemd/system, ranked below /etc', 'hf-tl', '/etc/systemd/system', '/run/systemd/system', false],
])(
  'a template with %s reads shadowed as a unit does and is refused, exactly when its instances load that copy',
  async (...row) => {
    const [, stem, directory, by, shadowed] = row;
    const [name, instance] = [`${stem}@.service`, `${stem}@a.service`];
    const template = (variant: string) => ({
      kind: 'systemd-unit',
      spec: unitSpec(name, service(variant), { directory, enabled: false, started: false }),
    });
    const i = { kind: 'systemd-instance', spec: instanceSpec(instance, { template: name, directory }), after: ['t'] };
    expect((await applyBatch({ t: template('declared'), i })).code).toBe(0);
    await byHand(`${by}/${name}`, service('handmade'), instance);

    const read = await readBatch({ t: template('changed'), i });
    const words = `systemd loads ${by}/${name} instead of ${directory}/${name}, a file the stack does not manage`;
    expect(read['t.summary']).toContain(shadowed ? `shadowed: ${words}` : 'differs: file is');
    expect(read['t.summary']?.includes('shadowed')).toBe(shadowed);
    expect(read['i.summary']?.includes(`shadowed: ${words}`)).toBe(shadowed);
    const applied = await applyBatch({ t: template('changed') });
    expect(applied.code).toBe(shadowed ? 1 : 0);
    expect((await host().exec(`cat ${directory}/${name}`)).stdout).toContain(shadowed ? 'V=declared' : 'V=changed');
    if (shadowed) expect(applied.stderr).toContain(`${name} on 127.0.0.1:${host().port} is shadowed: ${words}`);
    if (shadowed) expect(applied.stderr).toContain('nothing was changed');
    // Not shadowed: this apply of the template alone does not declare the instance, so it restarts it with the file
    // it wrote, as it does an instance started by hand (template-runs.ts).
    expect(await runningVariant(instance)).toBe(shadowed ? 'handmade' : 'changed');
  },
);

// The audit's B: a same-name drop-in in /etc/systemd/system.control wins; the plan read the declared one in sync.
test('a drop-in overridden by a same-name drop-in ranked higher differs, and the apply refuses it', async () => {
  const objects = {
    u: { kind: 'systemd-unit', spec: unitSpec('hf-sd.service', service('unit')) },
    d: {
      kind: 'systemd-drop-in',
      spec: {
        unit: 'hf-sd.service',
        name: '10-v',
        directory: '/etc/systemd/system',
        content: '[Service]\nEnvironment=V=declared\n',
        startTimeoutSeconds: 30,
      },
      after: ['u'],
    },
  };
  expect((await applyBatch(objects)).code).toBe(0);
  const winner = '/etc/systemd/system.control/hf-sd.service.d/10-v.conf';
  await byHand(winner, '[Service]\nEnvironment=V=handmade\n', 'hf-sd.service');

  const read = await readBatch(objects);
  expect(read['u.in_sync']).toBe('true');
  expect(read['d.in_sync']).toBe('false');
  expect(read['d.summary']).toContain(
    `overridden: systemd loads ${winner} instead of /etc/systemd/system/hf-sd.service.d/10-v.conf, a file the ` +
      'stack does not manage: remove it, or declare directory /etc/systemd/system.control',
  );
  const applied = await applyBatch({ d: objects.d });
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(`is overridden: systemd loads ${winner}`);
  expect(await runningVariant('hf-sd.service')).toBe('handmade');
});

// The one list of unit directories (unit-directories.ts) is systemd's own; `templatePaths` listed /usr/lib before /lib.
test('the read ranks the unit directories as systemd-analyze unit-paths lists them, generators aside', async () => {
  const measured = (await host().exec('systemd-analyze unit-paths')).stdout.trim().split('\n');
  expect(UNIT_SEARCH_PATH.map(({ path }) => path)).toEqual(measured);
  const searched = measured.filter((directory) => !directory.startsWith('/run/systemd/generator'));
  expect(templatePaths('hf-rank@.service')).toEqual(searched.map((directory) => `${directory}/hf-rank@.service`));
});

// /lib is /usr/lib here (merged /usr): pid1 names a template by /lib, a drop-in by /usr/lib; the read, as it does.
test('a template and a drop-in in /usr/lib read under the names systemd gives them once it loads them', async () => {
  const [template, dropIn] = ['/usr/lib/systemd/system/hf-rank@.service', '/usr/lib/systemd/system/hf-rank@.service.d'];
  await host().exec(
    `printf '[Service]\\nExecStart=/bin/true\\n' > ${template} && mkdir -p ${dropIn} && ` +
      `printf '[Service]\\nEnvironment=A=1\\n' > ${dropIn}/a.conf && systemctl daemon-reload`,
  );
  const shown = (await host().exec('systemctl show -p FragmentPath,DropInPaths hf-rank@x.service')).stdout;
  await host().exec(`rm -rf ${template} ${dropIn} && systemctl daemon-reload`);
  expect(shown).toBe(`FragmentPath=/lib/systemd/system/hf-rank@.service\nDropInPaths=${dropIn}/a.conf\n`);
  const both = (path: string) => [path, path.replace('/usr/lib/', '/lib/')];
  expect(templateStatus('hf-rank@.service', 'ab', 'static', (path) => both(template).includes(path)).fragmentPath).toBe(
    '/lib/systemd/system/hf-rank@.service',
  );
  const notFound = {
    loadState: 'not-found',
    activeState: '',
    subState: '',
    unitFileState: '',
    needDaemonReload: false,
  };
  const read = new Map(both(`${dropIn}/a.conf`).map((path) => [path, 'digest']));
  expect(withUnloadedDropIns('hf-rank@x.service', notFound, read).dropInPaths).toEqual([`${dropIn}/a.conf`]);
});
