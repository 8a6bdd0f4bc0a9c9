/**
 * The README's commands for a clone (Getting started, "A PVE simulator"): the simulator started with
 * `node bin/cdktf-homelab.js fake-pve`, examples/network.ts synthesized and applied against it, then
 * examples/estate.ts and examples/probes.ts planned against it and a real systemd host. Guards against
 * README commands for the examples that no longer run (issue 20: every command of Getting started runs
 * in CI). The clone is a folder of links to this checkout's build, so the test writes nothing into it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../support/free-port';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
import { terraformBinary } from '../support/toolchain';
import { onThisMachine, readmeBlock, UserProject, withoutExports, words } from '../support/user-project';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..', '..');

let project: UserProject;
let clone: string;
let host: SystemdHost;
let simulator: ChildProcess | undefined;
/** What the simulator's first line says: where it listens and the CA file a stack trusts. */
let ready: { url: string; caFile: string };

/**
 * A README block as a script for this machine. The blocks run each example app itself: a clone has no cdktf CLI (it
 * is no dependency of the package), and `npx cdktf` there answers `could not determine executable to run`.
 */
const runnable = (block: string): string => {
  if (/\bnpx cdktf\b/.test(block)) throw new Error(`a README block for a clone runs npx cdktf, which a clone lacks`);
  return onThisMachine(block);
};

/** The simulator's default token, as the README's network block exports it. */
const readmeToken = (): string => {
  const token = /export PROXMOX_VE_API_TOKEN='([^']+)'/.exec(readmeBlock('clone-network'))?.[1];
  if (token === undefined) throw new Error("the README's clone-network block exports no PROXMOX_VE_API_TOKEN");
  return token;
};

/** Starts the README's simulator command in the clone, on a free port, and waits for its first line. */
const startSimulator = async (): Promise<{ url: string; caFile: string }> => {
  const command = readmeBlock('clone-fake-pve');
  expect(command).toMatch(/^node bin\/cdktf-homelab\.js fake-pve {4}# https:\/\/127\.0\.0\.1:18006/);
  const port = await freePort(); // 18006 may be taken on a developer's machine; FAKE_PVE_PORT moves it
  const child = spawn('bash', ['-euo', 'pipefail', '-c', `exec ${command}`], {
    cwd: clone,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FAKE_PVE_PORT: String(port) },
  });
  simulator = child;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += `${chunk}`));
  const line = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`the simulator printed nothing in 60 s\n${stderr}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += `${chunk}`;
      if (stdout.includes('\n')) {
        clearTimeout(timer);
        resolve(stdout.split('\n')[0] ?? '');
      }
    });
    child.once('exit', (code) => reject(new Error(`the simulator exited ${code}\n${stderr}`)));
  });
  const first = JSON.parse(line) as { url: string; caFile: string };
  expect(first.url).toBe(`https://127.0.0.1:${port}`);
  expect(first.caFile).toBe(join(clone, '.fake-pve', 'cert.pem'));
  return first;
};

beforeAll(async () => {
  project = new UserProject();
  clone = join(project.home, 'cdktf-homelab');
  mkdirSync(clone);
  for (const entry of ['node_modules', 'build', 'bin']) symlinkSync(join(ROOT, entry), join(clone, entry));
  copyFileSync(join(ROOT, 'cdktf.json'), join(clone, 'cdktf.json'));
  host = await startSystemdHost();
  ready = await startSimulator();
});

afterAll(async () => {
  console.log(`readme clone e2e timings (s): ${project?.report()}`);
  simulator?.kill('SIGTERM');
  await host?.stop();
  project?.cleanup();
});

test("the README's network example applies against the simulator it starts, and the next plan is clean", async () => {
  const block = readmeBlock('clone-network');
  // The block's exports are the simulator's defaults; only the port differs here.
  const ran = await project.must('network block', runnable(block), clone, { PROXMOX_VE_ENDPOINT: ready.url });
  expect(words(ran.stdout)).toContain('Apply complete!');
  expect(words(ran.stdout)).toMatch(/n2: .*reload/i);
  const state = JSON.parse(readFileSync(join(clone, '.fake-pve', 'state.json'), 'utf8'));
  expect(JSON.stringify(state)).toContain('vmbr1');
  const plan = await project.bash(
    `"${terraformBinary()}" plan -detailed-exitcode -no-color`,
    join(clone, 'cdktf.out', 'stacks', 'network'),
    { PROXMOX_VE_ENDPOINT: ready.url, PROXMOX_VE_CA_FILE: ready.caFile, PROXMOX_VE_API_TOKEN: readmeToken() },
  );
  expect({ code: plan.code, stderr: plan.stderr }).toEqual({ code: 0, stderr: '' });
});

test("the README's estate and probes examples plan against the simulator and a real systemd host", async () => {
  const block = readmeBlock('clone-examples');
  expect(block).toContain('export PROXMOX_VE_ENDPOINT=https://127.0.0.1:18006');
  const env = {
    PROXMOX_VE_ENDPOINT: ready.url,
    PROXMOX_VE_CA_FILE: ready.caFile,
    PROXMOX_VE_API_TOKEN: readmeToken(),
    HOMELAB_SSH_HOST: host.host,
    HOMELAB_SSH_PORT: String(host.port),
    HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
    HOMELAB_SSH_KEY: host.privateKey,
  };
  const ran = await project.must('examples block', runnable(withoutExports(block)), clone, env);
  const said = words(ran.stdout);
  // estate: 50 metric servers absent on the simulator, 20 units absent on the host; probes: its units.
  expect(said).toContain('- metrics-0: metric server "estate-0" is absent');
  expect(said).toMatch(/- worker-0: unit estate-worker-0\.service on 127\.0\.0\.1:\d+ is absent/);
  expect(said).toMatch(/- probe-tty8: [^-]*hf-probe@tty8\.service[^-]* is absent/);
  expect([...said.matchAll(/Plan: \d+ to add, 0 to change, 0 to destroy\./g)]).toHaveLength(2);
});
