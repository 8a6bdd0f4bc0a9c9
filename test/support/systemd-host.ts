// Boots the cached Debian rootfs (scripts/setup-systemd-host.sh) under systemd-nspawn with sshd on
// 127.0.0.1:<free port>, so systemd tests hit REAL systemctl semantics over ssh2 with a pinned host key,
// and never leak a running container.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from 'ssh2';
import { cgroupDirs, memoryOf, removeCgroups, sweepDead } from './nspawn-cgroups';
import { freePort } from './free-port';
import { connectPinned, execOn, type ExecResult, generateKey } from './ssh-client';
import { fingerprintOfKey } from './ssh-fingerprint';

export interface SystemdHost {
  host: '127.0.0.1';
  port: number;
  user: 'root';
  /** A second login with the same key: non-root, passwordless sudo. */
  sudoUser: 'deploy';
  privateKey: string; // OpenSSH PEM
  hostKeyFingerprint: string; // OpenSSH 'SHA256:...'
  machineDir: string;
  /**
   * Bytes the kernel counts for the container now (cgroup2 memory.current, or the v1 memory cgroup's
   * usage_in_bytes on a hybrid host), page cache included; undefined unless started with measureMemory.
   */
  memoryBytes(): number | undefined;
  exec(cmd: string): Promise<ExecResult>;
  stop(): Promise<void>;
}

const SETUP = 'bash scripts/setup-systemd-host.sh';
const CACHE = path.join(process.env.CDKTF_HOMELAB_CACHE ?? '/var/cache/cdktf-homelab', 'systemd-host');
const READY_MS = Number(process.env.SYSTEMD_HOST_READY_MS ?? 60_000);
const STOP_MS = 20_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolves when p does or after ms, whichever is first, leaving no timer behind (jest open handles). */
const within = (p: Promise<void>, ms: number) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    void p.then(() => {
      clearTimeout(t);
      r();
    });
  });

/** The cached rootfs, or a clear error telling how to build it. */
export function cachedRootfs(): string {
  const current = path.join(CACHE, 'current');
  if (!fs.existsSync(path.join(current, 'complete')) || !fs.existsSync(path.join(current, 'rootfs/etc/ssh'))) {
    throw new Error(`systemd test host: no cached rootfs under ${current}; run \`${SETUP}\` as root first`);
  }
  return fs.realpathSync(path.join(current, 'rootfs'));
}

/** The container's init under nspawn's pid: the first systemd among its descendants, a few levels down. */
const containerInit = (nspawnPid: number): number | undefined => {
  let level = [nspawnPid];
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const next: number[] = [];
    for (const pid of level) {
      const read = (file: string) => fs.readFileSync(`/proc/${pid}/${file}`, 'utf8').trim();
      try {
        if (depth > 0 && read('comm') === 'systemd') return pid;
        next.push(...read(`task/${pid}/children`).split(/\s+/).filter(Boolean).map(Number));
      } catch {
        // gone meanwhile
      }
    }
    level = next;
  }
  return undefined;
};

/** ssh.service's journal inside the container, so a boot whose sshd failed says why; bounded at 5 s. */
const sshJournal = (nspawnPid: number | undefined): string => {
  const init = nspawnPid === undefined ? undefined : containerInit(nspawnPid);
  if (init === undefined) return '(no container init found)';
  const journal = ['journalctl', '-u', 'ssh.service', '-b', '--no-pager', '-n', '15', '-o', 'short-monotonic'];
  try {
    return execFileSync('nsenter', ['-t', String(init), '-m', '--', ...journal], { timeout: 5000, encoding: 'utf8' });
  } catch (e) {
    return `(journalctl failed: ${(e as Error).message.split('\n')[0]})`;
  }
};

export interface SystemdHostOptions {
  /** Also put the container in a memory cgroup of its own, so memoryBytes() can read it. @default false */
  readonly measureMemory?: boolean;
  /**
   * Boot the host as Debian ships it: systemd's generators run at each daemon-reload and each login runs pam_motd, as
   * on a real host (the image leaves both out for the tests: scripts/setup-systemd-host.sh). The benches set it, so
   * their reloads and logins cost what a host's do. @default false
   */
  readonly stock?: boolean;
}

/** Puts back what the image leaves out (an overlay: this boot only), then reloads so systemd runs its generators. */
const restoreStock = async (client: Client): Promise<void> => {
  const restore = 'rm -f /etc/systemd/system-generators/* && cp -p /etc/pam.d/sshd.debian /etc/pam.d/sshd';
  const r = await execOn(client, `${restore} && systemctl daemon-reload`);
  if (r.code !== 0) throw new Error(`the stock host was not restored: ${r.stderr.trim()}`);
};

export async function startSystemdHost(options: SystemdHostOptions = {}): Promise<SystemdHost> {
  if (process.getuid?.() !== 0) throw new Error('systemd test host: systemd-nspawn needs root');
  const rootfs = cachedRootfs();
  const machine = `cdktf-${process.pid}-${randomBytes(3).toString('hex')}`;
  const cgroups = cgroupDirs(machine, options.measureMemory === true ? ['memory'] : []);
  const machineDir = fs.mkdtempSync(path.join(os.tmpdir(), `cdktf-systemd-host-${process.pid}-`));
  const sshDir = path.join(machineDir, 'ssh');
  let hostKey: { private: string; public: string };
  let clientKey: { private: string; public: string };
  let port: number;
  try {
    hostKey = generateKey(path.join(machineDir, 'host-key'));
    clientKey = generateKey(path.join(machineDir, 'client-key'));
    port = await freePort();
    fs.mkdirSync(sshDir, { mode: 0o755 });
    fs.writeFileSync(path.join(sshDir, 'host_key'), hostKey.private, { mode: 0o600 });
    fs.writeFileSync(path.join(sshDir, 'authorized_keys'), clientKey.public + '\n', { mode: 0o644 });
    fs.writeFileSync(
      path.join(sshDir, 'run.conf'),
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        'HostKey /etc/ssh/cdktf-homelab/host_key',
        'AuthorizedKeysFile .ssh/authorized_keys /etc/ssh/cdktf-homelab/authorized_keys',
        '',
      ].join('\n'),
    );
    await sweepDead(cgroups.map((d) => path.dirname(d)));
    for (const d of cgroups) fs.mkdirSync(d);
  } catch (e) {
    await removeCgroups(cgroups, 1);
    fs.rmSync(machineDir, { recursive: true, force: true });
    throw e;
  }
  const hostKeyFingerprint = fingerprintOfKey(hostKey.public);
  const consoleLog = path.join(machineDir, 'console.log');
  const logFd = fs.openSync(consoleLog, 'a');
  // The wrapper moves itself into the fresh cgroups, then becomes nspawn (same pid: signals reach nspawn). With
  // setpriv, nspawn also gets SIGTERM (an orderly halt) if this process dies without running stop().
  const wrapper =
    'for d in $CG_DIRS; do echo $$ > "$d/cgroup.procs" || exit 97; done; ' +
    'if command -v setpriv >/dev/null; then exec setpriv --pdeathsig TERM "$@"; else exec "$@"; fi';
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      wrapper,
      'sh',
      'systemd-nspawn',
      '--boot',
      '--register=no',
      '--keep-unit',
      `--machine=${machine}`,
      `--directory=${rootfs}`,
      '--volatile=overlay',
      '--console=read-only',
      `--bind-ro=${sshDir}:/etc/ssh/cdktf-homelab`,
      '--setenv=SYSTEMD_COLORS=0',
    ],
    {
      env: { ...process.env, CG_DIRS: cgroups.join(' ') },
      stdio: ['ignore', logFd, logFd],
    },
  );
  fs.closeSync(logFd);
  let exit: string | undefined;
  const exited = new Promise<void>((r) =>
    child.once('exit', (code, sig) => {
      exit = `exit ${code ?? sig}`;
      r();
    }),
  );
  child.once('error', (e) => {
    exit = `spawn error ${e.message}`;
  });
  const killOnExit = () => {
    if (!exit) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  let client: Client | undefined;
  let stopping: Promise<void> | undefined;
  const connect = () =>
    connectPinned({ port, username: 'root', privateKey: clientKey.private, fingerprint: hostKeyFingerprint });
  const stop = () =>
    (stopping ??= (async () => {
      client?.end();
      if (!exit) {
        child.kill('SIGTERM'); // nspawn --boot: orderly halt of the container's systemd
        await within(exited, STOP_MS);
        if (!exit) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      process.removeListener('exit', killOnExit);
      await removeCgroups(cgroups);
      fs.rmSync(`/run/systemd/nspawn/propagate/${machine}`, { recursive: true, force: true });
      if (!process.env.SYSTEMD_HOST_KEEP_DIR) fs.rmSync(machineDir, { recursive: true, force: true });
    })());
  const consoleTail = () => {
    try {
      const text = fs.readFileSync(consoleLog, 'utf8').replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
      return text.trimEnd().split('\n').slice(-30).join('\n');
    } catch {
      return '(no console output)';
    }
  };

  const deadline = Date.now() + READY_MS;
  let last = 'no attempt yet';
  try {
    while (!client) {
      if (exit) throw new Error(`systemd-nspawn ended during boot (${exit})`);
      if (Date.now() > deadline) throw new Error(`not ready after ${READY_MS} ms (last: ${last})`);
      try {
        client = await connect();
      } catch (e) {
        last = `ssh: ${(e as Error).message}`;
        if (/Failed to start ssh\.service/.test(consoleTail()))
          throw new Error(`ssh.service failed at boot (${last})`, { cause: e });
        await sleep(100);
      }
    }
    const left = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    const r = await execOn(client, `timeout ${left} systemctl is-system-running --wait`);
    const state = r.stdout.trim();
    if (state !== 'running' && state !== 'degraded') {
      const failed = await execOn(client, 'systemctl --failed --no-legend --plain').catch(() => undefined);
      throw new Error(`systemctl is-system-running says "${state}" (exit ${r.code}) ${failed?.stdout ?? ''}`);
    }
    if (options.stock === true) await restoreStock(client);
  } catch (e) {
    const msg =
      `systemd test host ${machine} on 127.0.0.1:${port} failed to start: ${(e as Error).message}\n` +
      `--- last console lines (SYSTEMD_HOST_KEEP_DIR=1 keeps ${consoleLog}) ---\n${consoleTail()}\n` +
      `--- ssh.service's journal ---\n${exit ? '(the container is gone)' : sshJournal(child.pid)}`;
    await stop();
    throw new Error(msg, { cause: e });
  }

  const exec = async (cmd: string): Promise<ExecResult> => {
    if (stopping) throw new Error('systemd test host is stopped');
    try {
      return await execOn(client!, cmd);
    } catch (e) {
      if (!/Not connected|No response|ECONNRESET|closed/i.test((e as Error).message)) throw e;
      client = await connect(); // the connection dropped (e.g. a test restarted sshd): reconnect once
      return execOn(client, cmd);
    }
  };
  return {
    host: '127.0.0.1',
    port,
    user: 'root',
    sudoUser: 'deploy',
    privateKey: clientKey.private,
    hostKeyFingerprint,
    machineDir,
    memoryBytes: () => (options.measureMemory === true ? memoryOf(cgroups) : undefined),
    exec,
    stop,
  };
}
