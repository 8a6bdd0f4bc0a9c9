/**
 * A systemd template `<prefix>@.service` and its instance `<prefix>@b.service` as one batch, and the links to the
 * template's file, for the contract tests of templates on the systemd 252 test host: one set of helpers, so the
 * tests of a template's default instance and of its undeclared instances build the same batch and read the same links.
 */
import type { SystemdHost } from './systemd-host';
import { instanceSpec, unitSpec } from './unit-host';

export const ETC = '/etc/systemd/system';
export const RUN = '/run/systemd/system';
export const wants = (target: string, name: string) => `${ETC}/${target}.target.wants/${name}`;
const template = (install: string) =>
  `[Unit]\nDescription=default instance\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\n${install}`;
/** The template `t` and its instance `i` (`<prefix>@b.service`, enabled), as one batch. */
export const batch = (prefix: string, install: string, enabled: boolean) => ({
  t: { kind: 'systemd-unit', spec: unitSpec(`${prefix}@.service`, template(install), { enabled, started: false }) },
  i: { kind: 'systemd-instance', spec: instanceSpec(`${prefix}@b.service`, { started: false }), after: ['t'] },
});
export const to = (prefix: string) => (path: string) => `${path} -> ${ETC}/${prefix}@.service`;

/** Every link to the template's file under `root` (/etc by default), as `<path> -> <target>`, sorted. */
export const templateLinks = async (host: SystemdHost, prefix: string, root = ETC): Promise<string> =>
  (await host.exec(`find ${root} -maxdepth 2 -type l -lname '*/${prefix}@.service' -printf '%p -> %l\\n' | sort`))
    .stdout;

/**
 * Enables two instances the stack does not declare by hand: `<prefix>@foo.service` under /etc and
 * `<prefix>@bar.service` under /run (`--runtime`).
 */
export const enableByHand = async (host: SystemdHost, prefix: string): Promise<void> => {
  const hand = `systemctl enable ${prefix}@foo.service && systemctl enable --runtime ${prefix}@bar.service`;
  expect((await host.exec(hand)).code).toBe(0);
};
