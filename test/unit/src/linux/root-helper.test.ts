/**
 * The root helper's request as the handler encodes it (issue 27 item 8): one fixed verb and its words per
 * line, after the line naming the helper's version, closed by `end`, then the files of its writes (issue 30);
 * a word that could start another line or step is never sent. The helper's own checks, run by the real sh as an
 * unprivileged user, are root-helper-refusals.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { sha256Hex } from '../../../../src/core/canonical';
import {
  changedPaths,
  clearIntentStep,
  destroyUnitStep,
  forgetDropInStep,
  helperCommand,
  helperRefusal,
  helperRequest,
  installLine,
  intentStep,
  journalStep,
  linkSteps,
  listJobsStep,
  recordStep,
  removeDropInStep,
  restoreStep,
  removeUnitStep,
  ROOT_HELPER_VERSION,
  rootHelperText,
  sudoersLine,
  systemctlStep,
  unmaskStep,
  writeStep,
  wroteCount,
} from '../../../../src/linux/root-helper';
import { ROOT_HELPER_BODY, ROOT_HELPER_HEAD } from '../../../../src/linux/root-helper-script';

const DIR = '/etc/systemd/system';
const dropIn = { directory: DIR, unit: 'a.service', name: '10-v' };

describe('the helper', () => {
  test('its version is the first 12 hex digits of the sha256 of its text less the version line', () => {
    expect(ROOT_HELPER_VERSION).toBe(sha256Hex(ROOT_HELPER_HEAD + ROOT_HELPER_BODY).slice(0, 12));
    expect(rootHelperText()).toBe(`#!/bin/sh\n${ROOT_HELPER_HEAD}VERSION=${ROOT_HELPER_VERSION}\n${ROOT_HELPER_BODY}`);
  });

  test('it parses as POSIX sh (dash) and as bash in POSIX mode', () => {
    expect(() => execFileSync('sh', ['-n'], { input: rootHelperText() })).not.toThrow();
    expect(() => execFileSync('bash', ['--posix', '-n'], { input: rootHelperText() })).not.toThrow();
  });

  test('a sudo login runs the installed copy, which its one sudoers line names; root runs the same text', () => {
    expect(helperCommand(true)).toBe('sudo -n /usr/local/sbin/cdktf-homelab-root');
    expect(sudoersLine('deploy')).toBe('deploy ALL=(root) NOPASSWD: /usr/local/sbin/cdktf-homelab-root');
    const root = helperCommand(false);
    expect(root.startsWith(`sh -c '#!/bin/sh\n`)).toBe(true);
    expect(
      root.endsWith(`VERSION=${ROOT_HELPER_VERSION}\n${ROOT_HELPER_BODY.replace(/'/g, `'\\''`)}' cdktf-homelab-root`),
    ).toBe(true);
    expect(installLine({ host: 'h', port: 22 })).toBe(
      'npx cdktf-homelab root-helper | ssh root@h ' +
        "'install -m 0755 -o root -g root /dev/stdin /usr/local/sbin/cdktf-homelab-root'",
    );
    expect(installLine({ host: 'h', port: 2222 })).toMatch(/\| ssh -p 2222 root@h 'install /);
  });
});

describe('a request', () => {
  test('names the version, one step a line, and ends with end', () => {
    expect(helperRequest([systemctlStep('start', ['a.service', 'b@x.service'], '--no-block'), ['reload']])).toBe(
      `cdktf-homelab-root ${ROOT_HELPER_VERSION}\nsystemctl start --no-block a.service b@x.service\nreload\nend\n`,
    );
  });

  // Regression: a plain disable left the links of an `enable --runtime`, and the unit read enabled-runtime.
  test('a disable unlinks under /etc, then under /run; enable-runtime links under /run alone', () => {
    expect(linkSteps('disable', ['a.service', 'b@x.service'])).toEqual([
      ['systemctl', 'disable', '--no-reload', 'a.service', 'b@x.service'],
      ['systemctl', 'disable', '--no-reload', '--runtime', 'a.service', 'b@x.service'],
    ]);
    expect(linkSteps('enable', ['a.service'])).toEqual([['systemctl', 'enable', '--no-reload', 'a.service']]);
    expect(linkSteps('reenable', ['a.service'])).toEqual([
      ['systemctl', 'disable', '--no-reload', '--runtime', 'a.service'],
      ['systemctl', 'reenable', '--no-reload', 'a.service'],
    ]);
    expect(linkSteps('enable-runtime', ['a.service'])).toEqual([
      ['systemctl', 'enable', '--no-reload', '--runtime', 'a.service'],
    ]);
    expect(linkSteps('reenable-runtime', ['b@x.service'])).toEqual([
      ['systemctl', 'reenable', '--no-reload', '--runtime', 'b@x.service'],
    ]);
  });

  test('writes go anywhere among the steps, their files after the end line in their order, whatever they hold', () => {
    const content = '[Service]\nExecStart=/bin/echo é\nend\n';
    const step = writeStep({ sort: 'drop-in', ...dropIn }, content, sha256Hex('[Service]\n'));
    expect(step).toEqual([
      'write-drop-in',
      DIR,
      'a.service',
      '10-v',
      sha256Hex('[Service]\n'),
      sha256Hex(content),
      String(Buffer.byteLength(content)),
    ]);
    const other = '[Unit]\n';
    const second = writeStep({ sort: 'unit', directory: DIR, name: 'b.service' }, other, undefined);
    expect(second.slice(3, 4)).toEqual(['none']);
    const unmask = unmaskStep({ directory: DIR, name: 'a.service' });
    expect(helperRequest([step, unmask, second, ['reload']], [content, other])).toBe(
      `cdktf-homelab-root ${ROOT_HELPER_VERSION}\n${step.join(' ')}\nunmask ${DIR} a.service\n` +
        `${second.join(' ')}\nreload\nend\n${content}${other}`,
    );
  });

  test.each([
    ['a write without its content', []],
    ['contents in another order than the steps', ['[Unit]\n', '[Service]\n']],
    ['a content the step does not name', ['[Service]\n', '[Unit]\nX=1\n']],
    ['a content for no write', ['[Service]\n', '[Unit]\n', 'x']],
  ])('%s is a bug here, never sent', (_, contents) => {
    const steps = ['[Service]\n', '[Unit]\n'].map((content, i) =>
      writeStep({ sort: 'unit', directory: DIR, name: `w${i}.service` }, content, undefined),
    );
    expect(() => helperRequest([...steps, ['reload']], contents)).toThrow(
      'each write step has its content, in the order of the steps, and only a write has content',
    );
  });

  test('a request says how many of its writes are in place by their wrote lines', () => {
    expect(wroteCount(`wrote ${DIR}/a.service\nwrote ${DIR}/b.service\n`)).toBe(2);
    expect(wroteCount('')).toBe(0);
  });

  test("an undo's answer names each file it left because it changed after its apply wrote it", () => {
    expect(changedPaths(`changed ${DIR}/a.service\nremoved ${DIR}/b.service\n`)).toEqual([`${DIR}/a.service`]);
    expect(changedPaths('')).toEqual([]);
  });

  test("a new unit file's undo is the removal of the unit, never a restore", () => {
    const unit = { sort: 'unit' as const, directory: DIR, name: 'a.service' };
    expect(() => restoreStep(unit, 'x\n', false)).toThrow(/removeUnitStep/);
  });

  test.each([['a b.service'], ['a.service\nreload'], [''], ['a\u0000.service']])(
    'a word %p that is not one word is never sent',
    (name) => {
      expect(() => helperRequest([systemctlStep('start', [name])])).toThrow(/not a root helper step/);
    },
  );

  test('every step names its object by checked words, never by a path', () => {
    const unit = { sort: 'unit' as const, directory: DIR, name: 'a.service' };
    const steps = [
      intentStep(unit, 'sha256=- restart=no unit=a.service'),
      intentStep({ sort: 'drop-in', ...dropIn }, 'sha256=- restart=no unit=a.service'),
      recordStep(unit, 'x y z'),
      recordStep({ sort: 'drop-in', ...dropIn }, 'cdktf-homelab'),
      clearIntentStep(unit),
      clearIntentStep({ sort: 'drop-in', ...dropIn }),
      destroyUnitStep({ directory: DIR, name: 'a@x.service' }, { ownsFile: false, disable: true }),
      destroyUnitStep(
        { directory: DIR, name: 'a.service' },
        { ownsFile: true, disable: true, disabled: true, failed: true },
      ),
      removeUnitStep({ directory: DIR, name: 'a.service' }, 'x\n'),
      removeDropInStep(dropIn),
      forgetDropInStep(dropIn),
      restoreStep(unit, 'x\n'),
      restoreStep({ sort: 'drop-in', ...dropIn }, 'x\n'),
      restoreStep({ sort: 'drop-in', ...dropIn }, 'x\n', false),
      journalStep('a.service', 20),
      listJobsStep(),
      listJobsStep('a.service'),
    ];
    expect(steps.map((step) => step.join(' '))).toEqual([
      'intent-unit a.service sha256=- restart=no unit=a.service',
      `intent-drop-in ${DIR} a.service 10-v sha256=- restart=no unit=a.service`,
      'record-unit a.service x y z',
      `record-drop-in ${DIR} a.service 10-v cdktf-homelab`,
      'clear-unit-intent a.service',
      `clear-drop-in-intent ${DIR} a.service 10-v`,
      `destroy-unit ${DIR} a@x.service instance disable settled`,
      `destroy-unit ${DIR} a.service file disabled failed`,
      `remove-unit ${DIR} a.service ${sha256Hex('x\n')}`,
      `remove-drop-in ${DIR} a.service 10-v`,
      `forget-drop-in ${DIR} a.service 10-v`,
      `restore-unit ${DIR} a.service ${sha256Hex('x\n')}`,
      `restore-drop-in ${DIR} a.service 10-v ${sha256Hex('x\n')} kept`,
      `restore-drop-in ${DIR} a.service 10-v ${sha256Hex('x\n')} none`,
      'journal a.service 20',
      'list-jobs',
      'list-jobs a.service',
    ]);
  });
});

describe("a request that ran none of its steps, in the handler's words", () => {
  const deploy = { sudo: true, user: 'deploy', host: 'h', port: 22 };
  const oneLine = (result: { code: number; stderr: string }, login = deploy) =>
    helperRefusal(result, login, 'h:22')?.oneLine();

  test('sudo refusing names the helper line and how to install the helper', () => {
    expect(oneLine({ code: 1, stderr: 'sudo: a password is required\n' })).toBe(
      'sudo on h:22 refused to run the root helper: sudo: a password is required; every privileged step goes ' +
        'through /usr/local/sbin/cdktf-homelab-root, so deploy needs "deploy ALL=(root) NOPASSWD: ' +
        '/usr/local/sbin/cdktf-homelab-root" in /etc/sudoers.d/ and the helper installed (npx cdktf-homelab ' +
        "root-helper | ssh root@h 'install -m 0755 -o root -g root /dev/stdin /usr/local/sbin/cdktf-homelab-root'), " +
        'or connect as root',
    );
  });

  test("the helper refusing a step or its version says so; a step that ran and failed is the caller's", () => {
    expect(oneLine({ code: 64, stderr: 'cdktf-homelab-root: step 1 (x) refused: y; nothing was done\n' })).toBe(
      'the root helper on h:22 refused a step: cdktf-homelab-root: step 1 (x) refused: y; nothing was done',
    );
    expect(oneLine({ code: 65, stderr: 'cdktf-homelab-root: this is version 0123456789ab …\n' })).toMatch(
      new RegExp(
        `^the root helper on h:22 is another version than this cdktf-homelab's \\(${ROOT_HELPER_VERSION}\\): `,
      ),
    );
    expect(oneLine({ code: 1, stderr: 'Failed to start x.service: Unit x.service not found.\n' })).toBeUndefined();
    expect(oneLine({ code: 1, stderr: 'sudo: nothing' }, { ...deploy, sudo: false })).toBeUndefined();
    expect(oneLine({ code: 0, stderr: '' })).toBeUndefined();
  });
});
