/**
 * The estate the discover e2e test finds already running, made the way a human made it: PVE interfaces files and
 * metric server sections, unit files written and enabled by hand over SSH, Repos posted by another client.
 */
import { bridgeStanza, interfacesFile } from '../support/pve-network-node';

/** Node `i`'s running /etc/network/interfaces: vmbr0 on eno1, a VLAN-aware vmbr1 on enp2s0, a VLAN on vmbr0. */
export const nodeInterfaces = (i: number): string =>
  interfacesFile(
    ['eno1', 'enp2s0'],
    [
      bridgeStanza('vmbr0', 'eno1', { addressed: [`\taddress 10.0.0.${i + 1}/24`, '\tgateway 10.0.0.254'] }),
      bridgeStanza('vmbr1', 'enp2s0', {
        extra: ['\tbridge-vlan-aware yes', '\tbridge-vids 2-4094', '#storage uplink'],
      }),
      ['auto vmbr0.40', 'iface vmbr0.40 inet static', `\taddress 10.40.0.${i + 1}/24`],
    ],
  );

/** Five sections of three types; the InfluxDB token is write-only, the otel headers base64 JSON. */
export const METRIC_SERVERS = (headers: string): Record<string, Record<string, unknown>> => ({
  graphite: { type: 'graphite', server: '10.0.0.5', port: 2003, path: 'pve', proto: 'tcp' },
  'graphite-off': { type: 'graphite', server: '10.0.0.6', port: 2003, disable: 1 },
  influx: {
    type: 'influxdb',
    server: 'influx.lan',
    port: 8086,
    influxdbproto: 'https',
    bucket: 'pve',
    organization: 'lab',
    token: 'influx-SECRET',
  },
  'influx-udp': { type: 'influxdb', server: '10.0.0.7', port: 8089, mtu: 1400 },
  otel: { type: 'opentelemetry', server: 'otel.lan', port: 4318, 'otel-protocol': 'https', 'otel-headers': headers },
});

const unit = (description: string, service: string[], install = 'WantedBy=multi-user.target') =>
  [
    '[Unit]',
    `Description=${description}`,
    '[Service]',
    ...service,
    ...(install ? ['[Install]', install] : []),
    '',
  ].join('\n');

const write = (path: string, text: string) =>
  `printf '%s' '${text.replace(/'/g, "'\\''")}' > /etc/systemd/system/${path}`;

/** Ten unit files (two templates), three enabled instances, three drop-ins and a mask, as root would make them. */
export const ESTATE_UNITS: readonly string[] = [
  write('disc-web.service', unit('web', ['ExecStart=/bin/sleep infinity'])),
  write(
    'disc-worker.service',
    unit("worker's queue", ['ExecStart=/bin/sh -c "exec sleep infinity"', 'Restart=on-failure']),
  ),
  write('disc-idle.service', unit('idle', ['ExecStart=/bin/sleep infinity'])),
  write('disc-once.service', unit('once', ['Type=oneshot', 'ExecStart=/bin/true'], '')),
  write('disc-tick.service', unit('tick', ['Type=oneshot', 'ExecStart=/bin/true'], '')),
  write(
    'disc-tick.timer',
    ['[Unit]', 'Description=tick', '[Timer]', 'OnCalendar=yearly', '[Install]', 'WantedBy=timers.target', ''].join(
      '\n',
    ),
  ),
  write('disc-manual.service', unit('started by hand', ['ExecStart=/bin/sleep infinity'], '')),
  write(
    'disc-env.service',
    unit("env `x` ${y} '); //\u202e", ['ExecStart=/bin/sleep infinity', 'Environment=LEVEL=info']),
  ),
  write('disc-probe@.service', unit('probe %i', ['ExecStart=/bin/sleep infinity'])),
  write('disc-agent@.service', unit('agent %i', ['ExecStart=/bin/sleep infinity'])),
  'cd /etc/systemd/system && mkdir -p disc-web.service.d disc-probe@.service.d ssh.service.d',
  write('disc-web.service.d/10-env.conf', '[Service]\nEnvironment=PORT=8080\n'),
  write('disc-probe@.service.d/20-nice.conf', '[Service]\nNice=5\n'),
  write('ssh.service.d/disc-limits.conf', '[Service]\nLimitNOFILE=8192\n'),
  'ln -sf /dev/null /etc/systemd/system/disc-hidden.service',
  // Another stack's: a unit with its restartOn record, a drop-in with its mark, a unit whose first apply was
  // interrupted (its intent alone): discover must leave them out.
  write('disc-theirs.service', unit('theirs', ['ExecStart=/bin/sleep infinity'])),
  write('disc-half.service', unit('half', ['ExecStart=/bin/sleep infinity'])),
  'mkdir -p -m 0700 /var/lib/cdktf-homelab/intents',
  "printf 'cdktf-homelab-intent since=1 sha256=- restart=pending unit=disc-half.service\\n' " +
    '> /var/lib/cdktf-homelab/intents/disc-half.service',
  write('disc-web.service.d/30-theirs.conf', '[Service]\nEnvironment=THEIRS=1\n'),
  'mkdir -p /var/lib/cdktf-homelab/restart-on /var/lib/cdktf-homelab/drop-ins/etc/systemd/system/disc-web.service.d',
  `printf '%s\\n' ${'0'.repeat(64)} > /var/lib/cdktf-homelab/restart-on/disc-theirs.service`,
  "printf 'cdktf-homelab\\n' > /var/lib/cdktf-homelab/drop-ins/etc/systemd/system/disc-web.service.d/30-theirs.conf",
  'systemctl daemon-reload',
  'systemctl enable --now disc-web.service disc-worker.service disc-env.service disc-tick.timer disc-theirs.service',
  'systemctl enable --now disc-probe@a.service disc-probe@b.service',
  'systemctl enable disc-agent@x.service && systemctl start disc-manual.service',
  // ssh.service runs with its drop-in (a process started before its content is drift); its sessions outlive sshd.
  'systemctl daemon-reload && systemctl restart ssh.service',
];

/** The clone Secret `vault` names; `mirror` names one that does not exist. */
export const CLONE_SECRET = 'clone-vault';

/**
 * Six Repos: four made by hand (no marks), one of them naming an https clone Secret that exists, one a Secret that
 * does not (a stack would state it without, so discover leaves it out); two stated by a stack (bound label, identity
 * annotation: some stack's, left out).
 */
export const ESTATE_REPOS: readonly object[] = [
  ['site', 'git@git.example:me/site.git', { secretRef: { name: 'deploy-key-site' } }],
  ['docs', 'https://git.example/me/docs.git', {}],
  ['notes', 'ssh://git@git.example/me/notes.git', { refreshInterval: '1h' }],
  ['vault', 'https://git.example/me/vault.git', { secretRef: { name: CLONE_SECRET } }],
  ['mirror', 'https://git.example/me/mirror.git', { secretRef: { name: 'clone-mirror' } }],
  ['wiki', 'https://git.example/team/wiki', {}, "git.example/team/wiki'); process.exit(1); //\u2028\u202e ${x}"],
  ['tools', 'git@git.example:team/tools.git', { secretRef: { name: 'deploy-key-tools' } }, 'git.example/team/'],
].map(([name, url, spec, identity]) => ({
  apiVersion: 'core.jr2.dev/v1alpha1',
  kind: 'Repo',
  metadata: {
    name,
    ...(identity === undefined
      ? {}
      : { labels: { 'core.jr2.dev/bound': 'true' }, annotations: { 'core.jr2.dev/identity': identity } }),
  },
  spec: { url, ...(spec as object) },
}));
