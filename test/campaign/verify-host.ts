/**
 * What the systemd host holds, read over SSH with systemctl and the files themselves, never through a handler:
 * each declared unit's file and drop-in byte for byte, its state, the environment its running process was
 * started with (/proc/<MainPID>/environ), and nothing of the campaign's left that no variant declares now.
 */
import { unitText } from '../../src/linux/render-unit';
import type { SystemdHost } from '../support/systemd-host';
import {
  dropInSections,
  HAND_INSTANCES,
  otherVariant,
  unitSections,
  units,
  type UnitDecl,
  type Variant,
} from './variant';

const UNIT_DIR = '/etc/systemd/system';
const WANTS = `${UNIT_DIR}/multi-user.target.wants`;
const RUN_WANTS = '/run/systemd/system/multi-user.target.wants';
const TEMPLATE = `${UNIT_DIR}/fa-tpl@.service`;
const STATE_DIR = '/var/lib/cdktf-homelab';
const SHOW = 'LoadState,ActiveState,SubState,UnitFileState,NeedDaemonReload,MainPID';
const WANT_RUNNING = { LoadState: 'loaded', ActiveState: 'active', SubState: 'running', UnitFileState: 'enabled' };

const run = async (host: SystemdHost, command: string): Promise<string> => {
  const result = await host.exec(command);
  if (result.code !== 0) throw new Error(`on the host, \`${command}\` exited ${result.code}: ${result.stderr}`);
  return result.stdout;
};

const show = async (host: SystemdHost, name: string): Promise<Record<string, string>> => {
  const text = await run(host, `systemctl show -p ${SHOW} -- '${name}'`);
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
};

/** The file's text, or undefined when it is missing. */
const fileText = async (host: SystemdHost, path: string): Promise<string | undefined> => {
  const out = await run(host, `if [ -f '${path}' ]; then printf 'present\\n'; base64 -w0 < '${path}'; fi`);
  return out.startsWith('present\n') ? Buffer.from(out.slice(8), 'base64').toString('utf8') : undefined;
};

const environOf = async (host: SystemdHost, pid: string): Promise<Record<string, string>> => {
  const out = await run(host, `base64 -w0 < /proc/${pid}/environ 2>/dev/null || true`);
  const entries = Buffer.from(out, 'base64').toString('utf8').split('\0').filter(Boolean);
  return Object.fromEntries(
    entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
};

/** A running unit: its state as systemd says, and its process's environment as started. */
const runningDiffs = async (host: SystemdHost, name: string, environment: Readonly<Record<string, string>>) => {
  const state = await show(host, name);
  const diffs = Object.entries({ ...WANT_RUNNING, NeedDaemonReload: 'no' })
    .filter(([key, want]) => state[key] !== want)
    .map(([key, want]) => `${name}: ${key}=${state[key]}, want ${want}`);
  if (state.MainPID === undefined || state.MainPID === '0') return [...diffs, `${name}: no main process`];
  const live = await environOf(host, state.MainPID);
  const stale = Object.entries(environment).filter(([key, value]) => live[key] !== value);
  return [
    ...diffs,
    ...stale.map(
      ([key, value]) =>
        `${name}: its process (pid ${state.MainPID}) runs with ${key}=${live[key] ?? '(unset)'}, want ${value}`,
    ),
  ];
};

const fileDiff = async (host: SystemdHost, path: string, want: string): Promise<string[]> => {
  const live = await fileText(host, path);
  if (live === undefined) return [`${path} is missing`];
  return live === want ? [] : [`${path} differs from the declared text (${live.length} bytes, want ${want.length})`];
};

const unitDiffs = async (host: SystemdHost, unit: UnitDecl, v: Variant): Promise<string[]> => {
  const diffs = await fileDiff(host, `${UNIT_DIR}/${unit.name}`, unitText(unitSections(unit, v)));
  if (unit.dropIn !== undefined) {
    const path = `${UNIT_DIR}/${unit.name}.d/${unit.dropIn.name}.conf`;
    diffs.push(...(await fileDiff(host, path, unitText(dropInSections(unit.dropIn.environment)))));
  }
  const running = unit.instance === undefined ? unit.name : unit.name.replace('@.', `@${unit.instance}.`);
  return [...diffs, ...(await runningDiffs(host, running, unit.environment))];
};

/** The campaign's names the host may hold now: declared files, the drop-in folder, enablement links. */
const expectedEntries = (v: Variant): { files: string[]; links: string[] } => {
  const declared = units(v);
  const files = declared.flatMap((unit) => [unit.name, ...(unit.dropIn ? [`${unit.name}.d`] : [])]);
  const links = declared.map((unit) =>
    unit.instance === undefined ? unit.name : unit.name.replace('@.', `@${unit.instance}.`),
  );
  return { files, links: [...links, HAND_INSTANCES.etc] };
};

/** Anything of the campaign's (`fa-` in its name) that no declaration accounts for, temp files included. */
const strayDiffs = async (host: SystemdHost, v: Variant): Promise<string[]> => {
  const list = async (dir: string) =>
    (await run(host, `ls -A '${dir}' 2>/dev/null || true`)).split('\n').filter((name) => name.includes('fa-'));
  const { files, links } = expectedEntries(v);
  const diffs = [
    ...(await list(UNIT_DIR)).filter((name) => !files.includes(name)).map((name) => `${UNIT_DIR}/${name} is left over`),
    ...(await list(WANTS)).filter((name) => !links.includes(name)).map((name) => `${WANTS}/${name} is left over`),
  ];
  const dropIns = units(v).filter((unit) => unit.dropIn !== undefined);
  for (const unit of dropIns) {
    const entries = (await run(host, `ls -A '${UNIT_DIR}/${unit.name}.d' 2>/dev/null || true`))
      .split('\n')
      .filter(Boolean);
    const stray = entries.filter((name) => name !== `${unit.dropIn?.name}.conf`);
    diffs.push(...stray.map((name) => `${UNIT_DIR}/${unit.name}.d/${name} is left over`));
  }
  // Records and intents of a unit no variant declares now, and any temp file of a write that never finished.
  const names = expectedEntries(v).links.concat(units(v).map((unit) => unit.name));
  const state = (await run(host, `find ${STATE_DIR} /tmp -xdev -name '*fa-*' 2>/dev/null || true`)).split('\n');
  for (const path of state.filter(Boolean)) {
    const base = path.slice(path.lastIndexOf('/') + 1);
    const temp = base.startsWith('.');
    if (temp || !names.some((name) => base.includes(name))) diffs.push(`${path} is left over`);
  }
  // An intent is cleared once its object reads back as declared (README, Interrupted applies): none may stay.
  const intents = (await run(host, `find ${STATE_DIR}/intents -type f 2>/dev/null || true`)).split('\n');
  diffs.push(...intents.filter(Boolean).map((path) => `an intent is left: ${path}`));
  for (const unit of units(otherVariant(v)).filter((gone) => !names.includes(gone.name))) {
    const state = await show(host, unit.name);
    if (state.LoadState !== 'not-found' || state.ActiveState !== 'inactive') {
      diffs.push(`${unit.name} is declared no more but reads ${state.LoadState}/${state.ActiveState}`);
    }
  }
  return diffs;
};

/** Enables HAND_INSTANCES as a user would: the stack never declares them. */
export const enableByHand = async (host: SystemdHost): Promise<void> => {
  await run(host, `systemctl enable ${HAND_INSTANCES.etc} && systemctl enable --runtime ${HAND_INSTANCES.run}`);
};

/** Each hand-enabled instance's link, where its enable made it, to the template's file. */
const handDiffs = async (host: SystemdHost): Promise<string[]> => {
  const links = [`${WANTS}/${HAND_INSTANCES.etc}`, `${RUN_WANTS}/${HAND_INSTANCES.run}`];
  const diffs: string[] = [];
  for (const link of links) {
    const target = (await run(host, `readlink '${link}' || true`)).trim();
    if (target !== TEMPLATE) diffs.push(`${link} (enabled by hand) ${target === '' ? 'is gone' : `-> ${target}`}`);
  }
  return diffs;
};

/**
 * What differs on the host from `v`; with `hand` false, the hand-enabled instances' links are not looked at: a whole
 * destroy removes the template, whose disable unlinks them too (README), until its user enables them again.
 */
export const hostDiffs = async (host: SystemdHost, v: Variant, hand = true): Promise<string[]> => {
  const diffs: string[] = [];
  for (const unit of units(v)) diffs.push(...(await unitDiffs(host, unit, v)));
  return [...diffs, ...(hand ? await handDiffs(host) : []), ...(await strayDiffs(host, v))];
};
