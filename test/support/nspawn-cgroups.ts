/**
 * The cgroups and temp dirs of the systemd test host's containers: one fresh cgroup per container, removed
 * after it stops, and the leftovers of test processes that died without stopping theirs swept away, so a
 * crashed run never makes the next container collide with a stale cgroup.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fresh cgroup per container under ours, in the hierarchies nspawn uses (cgroup2, name=systemd): nspawn
 * --keep-unit creates payload/ and supervisor/ under its own cgroup, so two containers sharing one would collide.
 * `v1Controllers` (e.g. `memory`) adds the container's own cgroup in those cgroup v1 hierarchies, where there are
 * any: on a hybrid host memory is counted there, not in the cgroup2 dir, so a bench can measure one container. */
export function cgroupDirs(machine: string, v1Controllers: readonly string[] = []): string[] {
  const wanted = (ctl: string) => ctl === '' || ctl === 'name=systemd' || v1Controllers.includes(ctl);
  const own = new Map<string, string>();
  for (const l of fs.readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')) {
    const [, ctl, p] = l.match(/^\d+:([^:]*):(.*)$/) ?? [];
    if (ctl !== undefined && wanted(ctl) && p !== undefined) own.set(ctl, p);
  }
  const dirs: string[] = [];
  for (const l of fs.readFileSync('/proc/self/mountinfo', 'utf8').trim().split('\n')) {
    const f = l.split(' ');
    const [fstype, , superOpts] = f.slice(f.indexOf('-') + 1);
    const ctl =
      fstype === 'cgroup2'
        ? ''
        : fstype === 'cgroup'
          ? (superOpts ?? '').split(',').find((o) => o !== '' && o !== 'rw' && o !== 'ro' && wanted(o))
          : undefined;
    const p = ctl === undefined ? undefined : own.get(ctl);
    const [root, mountPoint] = [f[3], f[4]];
    if (p === undefined || root === undefined || mountPoint === undefined || path.relative(root, p).startsWith('..'))
      continue;
    dirs.push(path.join(mountPoint, path.relative(root, p), `cdktf-homelab.${machine}`));
  }
  return dirs;
}

/** What the container's cgroups count as its memory now; undefined when none of them counts memory. */
export const memoryOf = (cgroups: readonly string[]): number | undefined => {
  for (const file of cgroups.flatMap((d) => [path.join(d, 'memory.current'), path.join(d, 'memory.usage_in_bytes')])) {
    if (fs.existsSync(file)) return Number(fs.readFileSync(file, 'utf8').trim());
  }
  return undefined;
};

export async function removeCgroups(dirs: string[], tries = 50): Promise<void> {
  for (let i = 0; i < tries; i++) {
    let left = 0;
    for (const d of dirs) {
      if (!fs.existsSync(d)) continue;
      const walk = (x: string): void => {
        for (const e of fs.readdirSync(x, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(x, e.name));
        try {
          fs.rmdirSync(x);
        } catch {
          left++;
        }
      };
      walk(d);
    }
    if (!left || i === tries - 1) return;
    await sleep(100);
  }
}

/** Leftovers of test processes that died without stop() (their nspawn got SIGTERM via pdeathsig): empty cgroups
 * and temp dirs whose owner pid is gone. Names carry the owner pid: cdktf-<pid>-<hex>. */
export async function sweepDead(cgroupParents: string[]): Promise<void> {
  const dead = (name: string) => {
    const pid = Number(name.match(/cdktf-(?:systemd-host-)?(\d+)-/)?.[1]);
    if (!pid) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };
  const stale = (dir: string, prefix: string) =>
    (fs.existsSync(dir) ? fs.readdirSync(dir) : [])
      .filter((n) => n.startsWith(prefix) && dead(n))
      .map((n) => path.join(dir, n));
  await removeCgroups(
    cgroupParents.flatMap((d) => stale(d, 'cdktf-homelab.cdktf-')),
    1,
  );
  for (const d of stale(os.tmpdir(), 'cdktf-systemd-host-')) fs.rmSync(d, { recursive: true, force: true });
}
