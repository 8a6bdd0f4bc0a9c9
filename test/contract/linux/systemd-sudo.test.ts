/**
 * A non-root SSH user on real systemd 252 holding one sudoers line, the root helper's (issue 27 item 8):
 * the README's line used to be `/bin/sh` as root, which is root by another name. With only
 * `deploy ALL=(root) NOPASSWD: /usr/local/sbin/cdktf-homelab-root` it applies, reads drift, undoes,
 * adopts and destroys (what removing or retiring a construct runs) units, instances and drop-ins. The old
 * `/bin/sh` rule, a missing helper and a helper of another version fail naming what is needed, having
 * changed nothing; a request outside the helper's rules, sent by hand as deploy, is refused naming the step
 * and the rule, before anything is written.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { ROOT_HELPER_PATH, ROOT_HELPER_VERSION, rootHelperText } from '../../../src/linux/root-helper';
import { quote } from '../../../src/linux/shell';
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import { type ApplyEntry, invoke, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import {
  hostTarget,
  installRootHelper,
  instanceSpec,
  KEY_ENV,
  unitSpec,
  useSystemdHost,
} from '../../support/unit-host';

// Links for the undo to remove: a unit without [Install] has none (and may not be declared enabled).
const INSTALL = '[Install]\nWantedBy=multi-user.target\n';

jest.setTimeout(180_000);

const { host, unit } = useSystemdHost();

const DIR = '/etc/systemd/system';
const STATE = '/var/lib/cdktf-homelab';
const HELPER_LINE = `deploy ALL=(root) NOPASSWD: ${ROOT_HELPER_PATH}`;
const service = (v: string) =>
  `[Unit]\nDescription=${v}\n[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n`;
const asDeploy = () => hostTarget(host(), { user: 'deploy', sudo: true });
const env = () => ({ [KEY_ENV]: host().privateKey });
const sudoers = (line: string) => host().exec(`echo '${line}' > /etc/sudoers.d/deploy && visudo -cq`);
const apply = (objects: Record<string, ApplyEntry>) => invokeBatchApply(linuxDomain(), asDeploy(), objects, env());
const read = (objects: Record<string, ApplyEntry>) => invokeBatch(linuxDomain(), asDeploy(), objects, env());
const destroy = (kind: string, identity: object) => invoke(linuxDomain(), kind, 'destroy', asDeploy(), identity, env());
/** Which of `paths` exist, as files or links. */
const present = async (...paths: string[]) =>
  (
    await host().exec(paths.map((path) => `{ [ -e '${path}' ] || [ -L '${path}' ]; } && echo '${path}'`).join('; '))
  ).stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '');

const dropInOf = (unitName: string, value: string): DropInSpec => ({
  unit: unitName,
  name: '10-env',
  directory: DIR,
  content: `[Service]\nEnvironment=V=${value}\n`,
  startTimeoutSeconds: 30,
});

// The host is this file's alone: its deploy user keeps the helper line to the end.
beforeAll(() => sudoers(HELPER_LINE));

describe('holding only the helper line', () => {
  const web = unitSpec('sd-web.service', service('web'));
  const template = unitSpec('sd-t@.service', service('t %i'), { enabled: false, started: false });
  const objects = (value: string): Record<string, ApplyEntry> => ({
    web: { kind: 'systemd-unit', spec: web },
    t: { kind: 'systemd-unit', spec: template },
    t_x: { kind: 'systemd-instance', spec: instanceSpec('sd-t@x.service'), after: ['t'] },
    env: { kind: 'systemd-drop-in', spec: dropInOf('sd-web.service', value), after: ['web'] },
  });

  test('deploy applies a unit, a template, an instance and a drop-in, and the files are root-owned', async () => {
    expect(await apply(objects('a'))).toMatchObject({ code: 0 });
    expect(await unit.show('sd-web.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
    expect(await unit.show('sd-t@x.service')).toMatchObject({ ActiveState: 'active' });
    const owners = await host().exec(`stat -c %U ${DIR}/sd-web.service ${DIR}/sd-web.service.d/10-env.conf`);
    expect(owners.stdout.trim().split('\n')).toEqual(['root', 'root']);
    expect((await read(objects('a'))).result?.['.summary']).toBe('all 4 objects are in sync');
  });

  test('deploy reads drift made by hand, and its apply converges it', async () => {
    await host().exec('systemctl stop sd-t@x.service');
    await host().exec(`echo '# by hand' >> ${DIR}/sd-web.service.d/10-env.conf`);
    const drift = await read(objects('a'));
    expect(drift.result?.['t_x.in_sync']).toBe('false');
    expect(drift.result?.['env.in_sync']).toBe('false');
    const pid = (await unit.show('sd-web.service')).MainPID;
    expect(await apply(objects('b'))).toMatchObject({ code: 0 });
    expect((await unit.show('sd-web.service')).MainPID).not.toBe(pid);
    expect((await read(objects('b'))).result?.['.summary']).toBe('all 4 objects are in sync');
  });

  test('a failed start is undone through the helper: its file, record, intent and links removed', async () => {
    const broken = unitSpec('sd-broken.service', `[Service]\nType=oneshot\nExecStart=/bin/false\n${INSTALL}`, {
      enabled: true,
    });
    const failed = await apply({ broken: { kind: 'systemd-unit', spec: broken } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/restored the host by removing the new unit file and its links/);
    expect(failed.stderr).not.toMatch(/sudo|refused/);
    expect(
      await present(
        `${DIR}/sd-broken.service`,
        `${STATE}/restart-on/sd-broken.service`,
        `${STATE}/intents/sd-broken.service`,
      ),
    ).toEqual([]);
  });

  test('deploy destroys the instance, the drop-in, the unit and the template, with their records', async () => {
    expect(await destroy('systemd-instance', { name: 'sd-t@x.service', directory: DIR })).toMatchObject({ code: 0 });
    const dropIn = dropInOf('sd-web.service', 'b');
    const { content: _, startTimeoutSeconds: __, ...identity } = dropIn;
    expect(await destroy('systemd-drop-in', identity)).toMatchObject({ code: 0 });
    for (const name of ['sd-web.service', 'sd-t@.service'])
      expect(await destroy('systemd-unit', { name, directory: DIR })).toMatchObject({ code: 0 });
    expect(
      await present(
        `${DIR}/sd-web.service`,
        `${DIR}/sd-web.service.d/10-env.conf`,
        `${DIR}/sd-t@.service`,
        `${DIR}/multi-user.target.wants/sd-web.service`,
        `${DIR}/multi-user.target.wants/sd-t@x.service`,
        `${STATE}/restart-on/sd-web.service`,
        `${STATE}/restart-on/sd-t@x.service`,
        `${STATE}/drop-ins${DIR}/sd-web.service.d/10-env.conf`,
      ),
    ).toEqual([]);
    expect(await unit.show('sd-t@x.service')).toMatchObject({ ActiveState: 'inactive' });
  });

  test('deploy adopts a unit, an instance and a drop-in made by hand, then destroys them', async () => {
    await host().exec(
      `printf '%s' ${quote(service('hand'))} > ${DIR}/sd-hand.service && ` +
        `printf '%s' ${quote(service('h %i'))} > ${DIR}/sd-h@.service && ` +
        `mkdir -p ${DIR}/sd-hand.service.d && printf '%s' ${quote(dropInOf('sd-hand.service', 'h').content)} ` +
        `> ${DIR}/sd-hand.service.d/10-env.conf && systemctl daemon-reload && ` +
        'systemctl enable --now sd-hand.service sd-h@y.service',
    );
    const hand = unitSpec('sd-hand.service', service('hand'));
    const adopted: Record<string, ApplyEntry> = {
      hand: { kind: 'systemd-unit', spec: hand, adopt: true },
      h_y: { kind: 'systemd-instance', spec: instanceSpec('sd-h@y.service'), adopt: true },
      env: { kind: 'systemd-drop-in', spec: dropInOf('sd-hand.service', 'h'), after: ['hand'], adopt: true },
    };
    expect(await apply(adopted)).toMatchObject({ code: 0 });
    expect(await present(`${STATE}/restart-on/sd-hand.service`, `${STATE}/restart-on/sd-h@y.service`)).toHaveLength(2);
    expect(await present(`${STATE}/drop-ins${DIR}/sd-hand.service.d/10-env.conf`)).toHaveLength(1);
    expect(await destroy('systemd-instance', { name: 'sd-h@y.service', directory: DIR })).toMatchObject({ code: 0 });
    const { content: _, startTimeoutSeconds: __, ...identity } = dropInOf('sd-hand.service', 'h');
    expect(await destroy('systemd-drop-in', identity)).toMatchObject({ code: 0 });
    expect(await destroy('systemd-unit', { name: 'sd-hand.service', directory: DIR })).toMatchObject({ code: 0 });
    expect(
      await present(
        `${DIR}/sd-hand.service`,
        `${DIR}/sd-hand.service.d/10-env.conf`,
        `${STATE}/restart-on/sd-hand.service`,
      ),
    ).toEqual([]);
    expect(await unit.show('sd-h@y.service')).toMatchObject({ ActiveState: 'inactive' });
  });

  test('a mark deploy cannot read fails its destroy naming it, never guessed, and removes nothing', async () => {
    // Issue 27: a destroy acts only on a unit carrying the stack's mark; one it cannot read is not guessed at.
    const spec = unitSpec('hidden-mark.service', service('hidden'));
    expect(await unit.run('apply', spec, asDeploy())).toMatchObject({ code: 0 });
    await host().exec(`chmod 0700 ${STATE}/restart-on`);
    const failed = await unit.run('destroy', spec, asDeploy());
    await host().exec(`chmod 0755 ${STATE}/restart-on`);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`refused read access to ${STATE}/restart-on/hidden-mark.service`);
    expect(await unit.show('hidden-mark.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
  });
});

describe('what the helper line needs', () => {
  const spec = unitSpec('sd-denied.service', service('denied'));
  const untouched = async () =>
    expect(await present(`${DIR}/sd-denied.service`, `${STATE}/intents/sd-denied.service`)).toEqual([]);
  afterEach(async () => {
    await sudoers(HELPER_LINE);
    await installRootHelper(host());
  });

  test('the old /bin/sh rule fails naming the helper line and its install, and changes nothing', async () => {
    await sudoers('deploy ALL=(root) NOPASSWD: /bin/sh');
    const failed = await unit.run('apply', spec, asDeploy());
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      new RegExp(
        /^systemd-unit apply: sd-denied.service on 127.0.0.1:\d+ was not applied: /.source +
          /sudo on 127.0.0.1:\d+ refused to run the root helper: sudo: a password is required; /.source +
          /every privileged step goes through \/usr\/local\/sbin\/cdktf-homelab-root, so deploy needs /.source +
          /"deploy ALL=\(root\) NOPASSWD: \/usr\/local\/sbin\/cdktf-homelab-root" in \/etc\/sudoers.d\/ /.source +
          /and the helper installed \(npx cdktf-homelab root-helper \| ssh -p \d+ root@127.0.0.1 /.source +
          /'install -m 0755 -o root -g root \/dev\/stdin \/usr\/local\/sbin\/cdktf-homelab-root'\), /.source +
          /or connect as root; the unit is now inactive\/dead$/.source,
      ),
    );
    expect(failed.stderr).not.toMatch(/wrote|restored|undo/);
    await untouched();
  });

  test('a missing helper fails naming it, and changes nothing', async () => {
    await host().exec(`rm -f ${ROOT_HELPER_PATH}`);
    const failed = await unit.run('apply', spec, asDeploy());
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /refused to run the root helper: sudo: .*cdktf-homelab-root.*; every privileged step goes through /,
    );
    expect(failed.stderr).toContain(`"${HELPER_LINE}" in /etc/sudoers.d/ and the helper installed`);
    await untouched();
  });

  test('a helper of another version fails naming both and how to install this one, changing nothing', async () => {
    const older = rootHelperText().replace(`VERSION=${ROOT_HELPER_VERSION}`, 'VERSION=0123456789ab');
    await host().exec(`printf '%s' ${quote(older)} > ${ROOT_HELPER_PATH}`);
    const failed = await unit.run('apply', spec, asDeploy());
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      `the root helper on 127.0.0.1:${host().port} is another version than this cdktf-homelab's ` +
        `(${ROOT_HELPER_VERSION}): cdktf-homelab-root: this is version 0123456789ab and the request is for ` +
        `version ${ROOT_HELPER_VERSION}`,
    );
    expect(failed.stderr).toMatch(/; install this one: npx cdktf-homelab root-helper \| ssh -p \d+ root@127.0.0.1 /);
    await untouched();
  });
});

describe('a request outside the rules, sent to the installed helper by deploy', () => {
  const DIGEST = 'a'.repeat(64);
  /** The helper run as deploy through sudo with `lines` and an end line on stdin. */
  const ask = (...lines: string[]) =>
    host().exec(
      `printf '%s\\n' ${[`cdktf-homelab-root ${ROOT_HELPER_VERSION}`, ...lines, 'end'].map(quote).join(' ')} | ` +
        `runuser -u deploy -- sudo -n ${ROOT_HELPER_PATH}`,
    );
  /** How the helper shows a step of the request in its message: 80 bytes, odd characters as ?. */
  const shown = (line: string) => line.slice(0, 80).replace(/[^A-Za-z0-9 ._:@/=+-]/g, '?');
  const UNITS = "systemd's unit directories (/etc/systemd/system /etc/systemd/system.control";
  const cases: Array<[string, string[], string]> = [
    [
      'a path-traversal unit name',
      [`write-unit ${DIR} ../../../tmp/evil.service none ${DIGEST} 3`],
      'the unit must be a unit name of letters, digits and : _ . \\ - @',
    ],
    [
      'a systemctl verb not listed',
      ['systemctl mask sshd.service'],
      "systemctl's verb must be one of start, stop, restart, enable, disable, reenable, reset-failed",
    ],
    [
      'a directory outside the unit directories',
      [`write-unit /tmp evil.service none ${DIGEST} 3`],
      `the directory must be one of ${UNITS}`,
    ],
    [
      'a record text with a shell character, after a valid step',
      ['record-unit sd-evil.service abc', 'record-unit sd-evil2.service x;touch${IFS}/tmp/evil'],
      'the text must be words of letters, digits and = _ . : @ \\ -',
    ],
    ['a step that is not one', ['sh -c id'], 'the steps are: systemctl reload unmask write-unit'],
    // The verbs added since (drop-in traces, the undo's checks): an audit's probes, 2026-12-07.
    [
      "a trace whose drop-in name climbs out of its unit's directory",
      [`trace-drop-in ${DIR} sd.service ../../../../tmp/evil 1.5 2049:7`],
      'the drop-in name must be letters, digits and _ . @ - with no leading dot',
    ],
    [
      'a trace whose stamp carries shell text',
      [`trace-drop-in ${DIR} sd.service 10-v 1;touch${'${IFS}'}/tmp/evil 2049:7`],
      'the ctime must be seconds since the epoch',
    ],
    [
      'a trace cleared outside the unit directories',
      ['clear-drop-in-trace /tmp sd.service 10-v'],
      `the directory must be one of ${UNITS}`,
    ],
    [
      "an undo's link outside the admin directory",
      [`unlink ${DIR} sd.service ../../../tmp/evil.service`],
      'the link must be <unit> or <unit>.wants/<unit> (.requires, .upholds)',
    ],
    [
      'an undo whose kept word is a path',
      [`restore-drop-in ${DIR} sd.service 10-v ${DIGEST} /tmp/evil`],
      'the fifth word must be kept or none',
    ],
  ];

  test.each(cases)('%s is refused naming the step and the rule, and nothing is written', async (_, lines, rule) => {
    const answer = await ask(...lines);
    expect(answer.code).toBe(64);
    const step = lines.length;
    expect(answer.stderr).toContain(`cdktf-homelab-root: step ${step} (${shown(lines.at(-1) ?? '')}) refused: ${rule}`);
    expect(answer.stderr.trim().endsWith('; nothing was done')).toBe(true);
    expect(await present('/tmp/evil.service', '/tmp/evil', `${STATE}/restart-on/sd-evil.service`)).toEqual([]);
  });
});
