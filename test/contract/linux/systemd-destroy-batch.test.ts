/**
 * The units one destroy run gathered, destroyed as one batch on real systemd 252 (issue 15 item 4):
 * one read, their stops in one command, their removals in one root helper request (issue 30), one daemon-reload
 * for them all; each unit's lines are its own,
 * and one that cannot be wholly removed fails alone, named, while the others are gone.
 */
import { destroyItemOf } from '../../../src/core/destroy-relay';
import type { KindContext } from '../../../src/core/kind';
import { systemClock } from '../../../src/core/clock';
import { parseSshTarget } from '../../../src/linux/target';
import { linuxDomain } from '../../../handlers/linux/domain';
import type { HostSession } from '../../../handlers/linux/session';
import { appliedMark, hostTarget, KEY_ENV, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(180_000);

const { host, unit } = useSystemdHost();

const DIR = '/etc/systemd/system';
const WANTS = `${DIR}/multi-user.target.wants`;
const sleeper = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const reloads = async () =>
  Number((await host().exec('journalctl _PID=1 --no-pager -o cat | grep -c "^Reloading" || true')).stdout.trim());

test('six units and one that cannot be wholly removed: one removal request, one reload, the 7th named', async () => {
  const names = Array.from({ length: 6 }, (_, index) => `gone-${index}.service`);
  // Not enabled: the read-only wants folder below is the stuck one's alone.
  for (const name of names) expect((await unit.run('apply', unitSpec(name, sleeper, { enabled: false }))).code).toBe(0);
  await host().exec(
    `printf '%s' '${sleeper}' > ${DIR}/stuck.service && systemctl enable stuck.service && ` +
      `rm ${DIR}/stuck.service && ${appliedMark(unitSpec('stuck.service', sleeper))} && ` +
      `mount --bind ${WANTS} ${WANTS} && mount -o remount,ro,bind ${WANTS}`,
  );
  const domain = linuxDomain();
  const env = { [KEY_ENV]: host().privateKey };
  const lines = new Map<string, string[]>();
  const contextOf = (name: string): KindContext => ({
    env,
    clock: systemClock,
    log: (line) => lines.set(name, [...(lines.get(name) ?? []), line]),
  });
  const connected = await domain.connect(parseSshTarget(hostTarget(host())), contextOf('connect'), 'write');
  // Counts the root helper requests that remove units: one for the batch (before: one a unit).
  let removalRequests = 0;
  const session: HostSession = {
    ...connected,
    remote: {
      ...connected.remote,
      run: (command, stdin, effect) => {
        if (stdin?.includes('\ndestroy-unit ') === true) removalRequests += 1;
        return connected.remote.run(command, stdin, effect);
      },
    },
  };
  try {
    const kind = await domain.kinds['systemd-unit']();
    const items = [...names, 'stuck.service'].flatMap(
      (name) => destroyItemOf(kind, { name, directory: DIR }, contextOf(name), false) ?? [],
    );
    const before = await reloads();
    const outcomes = await domain.destroyAll(session, items);
    expect(await reloads()).toBe(before + 1);
    expect(removalRequests).toBe(1);
    expect(outcomes.slice(0, 6)).toEqual(Array(6).fill(undefined));
    expect(outcomes[6]?.message).toMatch(/stuck\.service on 127\.0\.0\.1:\d+ was not wholly removed/);
    for (const name of names) {
      expect(lines.get(name)).toEqual([expect.stringMatching(new RegExp(`^${name} on .*: stopped and removed$`))]);
      expect(await unit.show(name)).toMatchObject({ LoadState: 'not-found', ActiveState: 'inactive' });
    }
    expect((await host().exec(`ls ${DIR} | grep '^gone-' ; true`)).stdout).toBe('');
  } finally {
    await domain.close(session);
    await host().exec(`umount ${WANTS}; rm -f ${WANTS}/stuck.service`);
  }
});

test('enabled units are disabled in one command; one whose disable fails fails alone, the others gone', async () => {
  const byDefault = sleeper.replace('multi-user.target', 'default.target');
  const names = ['dis-0.service', 'dis-1.service', 'dis-2.service'];
  for (const name of names) expect((await unit.run('apply', unitSpec(name, byDefault))).code).toBe(0);
  expect((await unit.run('apply', unitSpec('dis-ro.service', sleeper))).code).toBe(0);
  await host().exec(`mount --bind ${WANTS} ${WANTS} && mount -o remount,ro,bind ${WANTS}`);
  const domain = linuxDomain();
  const context: KindContext = { env: { [KEY_ENV]: host().privateKey }, clock: systemClock, log: () => undefined };
  const session = await domain.connect(parseSshTarget(hostTarget(host())), context, 'write');
  try {
    const kind = await domain.kinds['systemd-unit']();
    const items = [...names, 'dis-ro.service'].flatMap(
      (name) => destroyItemOf(kind, { name, directory: DIR }, context, false) ?? [],
    );
    const outcomes = await domain.destroyAll(session, items);
    expect(outcomes.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(outcomes[3]?.message).toMatch(/command failed on 127\.0\.0\.1:\d+/);
    expect(outcomes[3]?.message).toMatch(/Read-only file system/);
    for (const name of names) expect(await unit.show(name)).toMatchObject({ LoadState: 'not-found' });
  } finally {
    await domain.close(session);
    await host().exec(`umount ${WANTS}`);
  }
});

test('a unit failed before the destroy and one that fails on its stop are gone from the failed list too', async () => {
  const failing = '[Service]\nExecStart=/bin/false\n';
  // Its main process exits 3 on SIGTERM: the stop leaves it failed (Result=exit-code).
  const failsOnStop = `[Service]\nExecStart=/bin/sh -c 'trap "exit 3" TERM; sleep infinity & wait'\n`;
  const specs = [unitSpec('failed-0.service', failing), unitSpec('stopfail-0.service', failsOnStop)];
  for (const spec of specs) {
    const text = Buffer.from(spec.content).toString('base64');
    await host().exec(
      `echo ${text} | base64 -d > ${DIR}/${spec.name} && ${appliedMark(spec)} && systemctl daemon-reload && ` +
        `systemctl start ${spec.name}; true`,
    );
  }
  expect(await unit.show('failed-0.service')).toMatchObject({ ActiveState: 'failed' });
  expect(await unit.show('stopfail-0.service')).toMatchObject({ ActiveState: 'active' });
  const domain = linuxDomain();
  const context: KindContext = { env: { [KEY_ENV]: host().privateKey }, clock: systemClock, log: () => undefined };
  const session = await domain.connect(parseSshTarget(hostTarget(host())), context, 'write');
  try {
    const kind = await domain.kinds['systemd-unit']();
    const items = specs.flatMap(({ name }) => destroyItemOf(kind, { name, directory: DIR }, context, false) ?? []);
    expect(await domain.destroyAll(session, items)).toEqual([undefined, undefined]);
    // Without reset-failed, systemd keeps a failed unit whose file went: LoadState=not-found, ActiveState=failed.
    for (const { name } of specs) {
      expect(await unit.show(name)).toMatchObject({ LoadState: 'not-found', ActiveState: 'inactive' });
    }
  } finally {
    await domain.close(session);
  }
});
