/**
 * The Ansible side of the systemd bench: an inventory pinned to the test host's key, and a playbook
 * that writes the same unit files as examples/probes.ts's fleet, reloads, enables and starts them,
 * in the form Ansible's own docs use (copy with a loop, then systemd_service with a loop).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unitText } from '../src/linux/render-unit';

/** The unit file of fleet member `n`, exactly as examples/probes.ts declares it. */
export const fleetUnit = (n: number): string =>
  unitText([
    { name: 'Unit', lines: [['Description', `homelab fleet member ${n}`]] },
    { name: 'Service', lines: [['ExecStart', '/bin/sleep infinity']] },
    { name: 'Install', lines: [['WantedBy', 'multi-user.target']] },
  ]);

export interface AnsibleHost {
  readonly port: number;
  readonly privateKey: string;
  readonly hostKeyFingerprint: string;
}

/**
 * Ansible as shipped (ControlPersist, its default, keeps one SSH connection) and as experienced users
 * run it, with pipelining: each task's module goes down the open connection instead of a copied file.
 */
export const ANSIBLE_CONFIGS = { plain: 'plain.cfg', pipelined: 'pipelined.cfg' } as const;

/**
 * Writes inventory, both configs and playbook into a fresh private directory; returns it. Several hosts (the
 * fleet bench) each get their own key file and pinned key line, and `forks` of them are worked on at once.
 */
export const ansibleProject = (
  target: AnsibleHost | readonly AnsibleHost[],
  units: number,
  forks = 5, // Ansible's own default
): string => {
  const hosts = 'port' in target ? [target] : target;
  const dir = mkdtempSync(join(tmpdir(), 'homelab-bench-ansible-'));
  hosts.forEach((host, index) => writeFileSync(join(dir, `id-${index}`), host.privateKey, { mode: 0o600 }));
  writeFileSync(join(dir, 'known_hosts'), hosts.map(pinnedKnownHost).join(''));
  const line = (host: AnsibleHost, index: number) =>
    `h${index} ansible_host=127.0.0.1 ansible_port=${host.port} ansible_user=root ` +
    `ansible_python_interpreter=/usr/bin/python3 ansible_ssh_private_key_file=${join(dir, `id-${index}`)} ` +
    `ansible_ssh_common_args="-o UserKnownHostsFile=${join(dir, 'known_hosts')}"`;
  writeFileSync(join(dir, 'hosts.ini'), ['[node]', ...hosts.map(line), ''].join('\n'));
  const defaults = `[defaults]\nhost_key_checking = True\nretry_files_enabled = False\nforks = ${forks}\n`;
  writeFileSync(join(dir, ANSIBLE_CONFIGS.plain), defaults);
  writeFileSync(join(dir, ANSIBLE_CONFIGS.pipelined), `${defaults}\n[ssh_connection]\npipelining = True\n`);
  const files = Array.from({ length: units }, (_, n) => ({ name: `hf-fleet-${n}.service`, content: fleetUnit(n) }));
  const play = [
    {
      hosts: 'node',
      gather_facts: false,
      tasks: [
        {
          name: 'unit files',
          'ansible.builtin.copy': {
            dest: '/etc/systemd/system/{{ item.name }}',
            content: '{{ item.content }}',
            mode: '0644',
          },
          loop: files,
          register: 'written',
        },
        { name: 'reload', 'ansible.builtin.systemd_service': { daemon_reload: true }, when: 'written.changed' },
        {
          name: 'enabled and started',
          'ansible.builtin.systemd_service': { name: '{{ item.name }}', enabled: true, state: 'started' },
          loop: files,
        },
      ],
    },
  ];
  writeFileSync(join(dir, 'fleet.yml'), JSON.stringify(play, null, 1)); // JSON is YAML
  return dir;
};

/** The host's key line from ssh-keyscan, kept only when it has the pinned fingerprint. */
const pinnedKnownHost = (host: AnsibleHost): string => {
  const lines = execFileSync('ssh-keyscan', ['-p', String(host.port), '-t', 'ed25519', '127.0.0.1'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = lines.split('\n').find((entry) => entry.trim() !== '' && !entry.startsWith('#')) ?? '';
  const fingerprint = execFileSync('ssh-keygen', ['-lf', '-'], { input: line, encoding: 'utf8' }).split(' ')[1];
  if (fingerprint !== host.hostKeyFingerprint)
    throw new Error(`ssh-keyscan got ${fingerprint}, not the pinned ${host.hostKeyFingerprint}`);
  return `${line}\n`;
};
