/**
 * Drives the systemd-unit handler against the real test host: specs, the handler table over real
 * ssh2, and out-of-band reads of what systemd says, parsed by key (systemctl reorders -p output).
 */
import { digestOf } from '../../src/core/canonical';
import type { Clock } from '../../src/core/clock';
import type { DropInSpec } from '../../src/linux/systemd-drop-in';
import type { InstanceSpec } from '../../src/linux/systemd-instance';
import type { UnitSpec } from '../../src/linux/systemd-unit';
import { enabledByDefault } from '../../src/linux/unit-enable';
import { instanceOf } from '../../src/linux/unit-name';
import { type HelperStep, helperRequest, ROOT_HELPER_PATH, rootHelperText } from '../../src/linux/root-helper';
import { quote } from '../../src/linux/shell';
import { RESTART_ON_DIR } from '../../src/linux/state-paths';
import { restartOnPath } from '../../src/linux/unit-file';
import { linuxDomain } from '../../handlers/linux/domain';
import { type ApplyEntry, invoke, invokeBatch, invokeBatchApply } from './run-handler';
import { startSystemdHost, type SystemdHost } from './systemd-host';

export const KEY_ENV = 'TEST_SSH_KEY';

/** A drop-in `10-v.conf` of `unit` in /etc/systemd/system setting `V=<v>`, which a test reads from the process. */
export const variantDropIn = (unit: string, v: string): DropInSpec => ({
  unit,
  name: '10-v',
  directory: '/etc/systemd/system',
  content: `[Service]\nEnvironment=V=${v}\n`,
  startTimeoutSeconds: 30,
});

export const unitSpec = (
  name: string,
  content: string,
  over: Partial<Omit<UnitSpec, 'restartOn'>> & { restartOn?: string[] } = {},
): UnitSpec => ({
  name,
  directory: '/etc/systemd/system',
  content,
  // As a SystemdUnit leaves it out: false where its [Install] names nothing to enable (unit-enable.ts).
  enabled: over.enabled ?? enabledByDefault(content),
  started: over.started ?? true,
  startTimeoutSeconds: 90,
  unmask: false,
  ...over,
  restartOn: digestOf(over.restartOn ?? []),
});

/** A service that runs until stopped, with `unitLines` in its [Unit] section (PartOf=, BindsTo=, ...). */
export const sleeperService = (unitLines: string): string =>
  `[Unit]\n${unitLines}[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n`;

/** A batch entry declaring the unit `name` as `sleeperService(unitLines)`. */
export const sleeperEntry = (name: string, unitLines: string) => ({
  kind: 'systemd-unit',
  spec: unitSpec(name, sleeperService(unitLines)),
});

/** An instance as `SystemdUnitInstance` declares one by default, of the template its name names. */
export const instanceSpec = (name: string, over: Partial<InstanceSpec> = {}): InstanceSpec => ({
  name,
  template: instanceOf(name) ?? name,
  directory: '/etc/systemd/system',
  enabled: true,
  started: true,
  restartOn: digestOf([]),
  startTimeoutSeconds: 90,
  unmask: false,
  ...over,
});

/**
 * The shell that leaves the record an apply of `spec` leaves (its restartOn digest), which is also the mark that the
 * stack made the unit: a test that installs a unit by hand to stand for one the stack applied runs it too, or the read
 * says the unit was not created by this stack (README, Adoption).
 */
export const appliedMark = (spec: UnitSpec): string =>
  `mkdir -p ${RESTART_ON_DIR} && printf '%s' ${spec.restartOn} > ${restartOnPath(spec)}`;

export const hostTarget = (host: SystemdHost, over: Record<string, unknown> = {}) => ({
  host: host.host,
  port: host.port,
  user: 'root',
  hostKey: host.hostKeyFingerprint,
  privateKeyEnv: KEY_ENV,
  readyTimeoutSeconds: 20,
  keepaliveIntervalSeconds: 15,
  sudo: false,
  ...over,
});

export const unitDriver = (host: SystemdHost) => {
  const env = { [KEY_ENV]: host.privateKey };
  const domain = linuxDomain();
  /** One handler run; `clock` lets a test act at the handler's waits (a unit released while the apply waits). */
  const run = (verb: 'read' | 'apply' | 'destroy', spec: UnitSpec, target: object = hostTarget(host), clock?: Clock) =>
    invoke(
      domain,
      'systemd-unit',
      verb,
      target,
      verb === 'destroy' ? { name: spec.name, directory: spec.directory } : spec,
      env,
      clock,
    );
  /** systemctl show, by key. */
  const show = async (
    name: string,
    props = 'LoadState,ActiveState,SubState,UnitFileState,NeedDaemonReload,InvocationID,MainPID',
  ) => {
    const { stdout } = await host.exec(`systemctl show -p ${props} -- ${name}`);
    return Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
  };
  /** Polls until systemd reports `state` (ActiveState/SubState), or fails after `ms`. */
  const waitFor = async (name: string, state: string, ms = 10_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const now = await show(name);
      if (`${now.ActiveState}/${now.SubState}` === state) return now;
      if (Date.now() > deadline)
        throw new Error(`${name} never reached ${state}; last ${now.ActiveState}/${now.SubState}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { run, show, waitFor };
};

/** Every link to `name` (by its name or its file's) under /etc and /run, as `<path> -> <target>`, sorted. */
export const unitLinks = async (host: SystemdHost, name: string): Promise<string[]> =>
  (
    await host.exec(
      `find /etc/systemd/system /run/systemd/system -mindepth 2 -maxdepth 2 -type l ` +
        `\\( -name '${name}' -o -lname '*/${name}' \\) -printf '%p -> %l\\n'`,
    )
  ).stdout
    .split('\n')
    .filter((line) => line !== '')
    .sort();

/**
 * Installs the root helper on the host as the README says (`install -m 0755 -o root -g root /dev/stdin
 * /usr/local/sbin/cdktf-homelab-root`, as root), so its sudo user (`deploy`) can apply through it.
 */
export const installRootHelper = async (host: SystemdHost): Promise<void> => {
  const install = `install -m 0755 -o root -g root /dev/stdin ${ROOT_HELPER_PATH}`;
  const { code, stderr } = await host.exec(`printf '%s' ${quote(rootHelperText())} | ${install}`);
  if (code !== 0) throw new Error(`the root helper was not installed: ${stderr}`);
};

/** The installed root helper's answer to `request` as it is, run as root. */
export const sendRootHelper = (host: SystemdHost, request: string) =>
  host.exec(`printf '%s' ${quote(request)} | ${ROOT_HELPER_PATH}`);

/** The installed root helper's answer to `steps` (and `contents`, its writes' files), run as root. */
export const askRootHelper = (host: SystemdHost, steps: readonly HelperStep[], contents?: readonly string[]) =>
  sendRootHelper(host, helperRequest(steps, contents));

/**
 * Boots one host for the test file, with the root helper installed, stops it after the file; `host()` and
 * `unit` are live after beforeAll.
 */
export const useSystemdHost = () => {
  let booted: { host: SystemdHost; unit: ReturnType<typeof unitDriver> } | undefined;
  beforeAll(async () => {
    const host = await startSystemdHost();
    await installRootHelper(host);
    booted = { host, unit: unitDriver(host) };
  });
  afterAll(() => booted?.host.stop());
  const ready = () => {
    if (booted === undefined) throw new Error('the systemd host is not booted yet (use it inside a test)');
    return booted;
  };
  const unit: ReturnType<typeof unitDriver> = {
    run: (...args) => ready().unit.run(...args),
    show: (...args) => ready().unit.show(...args),
    waitFor: (...args) => ready().unit.waitFor(...args),
  };
  return { host: () => ready().host, unit };
};

/** A batch plan and a batch apply of `objects` (name → entry) on the host, as the target's resources run them. */
export const unitBatch = (host: () => SystemdHost) => {
  const env = () => ({ [KEY_ENV]: host().privateKey });
  const plan = (objects: Readonly<Record<string, ApplyEntry>>) =>
    invokeBatch(linuxDomain(), hostTarget(host()), objects, env());
  const apply = (objects: Readonly<Record<string, ApplyEntry>>) =>
    invokeBatchApply(linuxDomain(), hostTarget(host()), objects, env());
  /**
   * The plan of `objects` names the drop-in at `shown` (as the plan prints its path), made by hand after the last
   * daemon-reload, for the unit of object `u`, and the restart it makes pending; the apply then reloads and
   * restarts it.
   */
  const loadsUnloadedDropIn = async (objects: Readonly<Record<string, ApplyEntry>>, shown: string) => {
    const planned = (await plan(objects)).result ?? {};
    expect(planned['u.in_sync']).toBe('false');
    expect(planned['u.summary']).toContain(
      `systemd has not loaded the host's drop-in ${shown} (made after its last daemon-reload): the apply's ` +
        'daemon-reload loads it',
    );
    expect(planned['u.summary']).toContain('restart pending: its process started before its content changed');
    const applied = await apply(objects);
    expect(applied).toMatchObject({ code: 0 });
    expect(applied.stderr).toMatch(/reloaded systemd\nu: restarted$/m);
  };
  return { plan, apply, loadsUnloadedDropIn };
};
