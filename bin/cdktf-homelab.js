#!/usr/bin/env node
// cdktf-homelab's command line: `fake-pve` runs the fake PVE the tests use (test/fakes/pve, bundled to
// build/fake-pve.js) as a simulator a user's stack or CI job can plan and apply against, with the defaults
// examples/network.ts expects (https://127.0.0.1:18006, members n2 and n3, state and certificate kept in
// ./.fake-pve so a restart keeps both); without it a stranger had nothing to run what the examples point at.
// Every other command (`discover`, `prune-record`) is build/cli/cdktf-homelab.js's.
'use strict';
const { join } = require('node:path');

const [command, ...args] = process.argv.slice(2);
if (command !== 'fake-pve') {
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(
      'cdktf-homelab fake-pve [flags]   a PVE simulator: --port 18006 --state .fake-pve --nodes n2,n3\n',
    );
  }
  require(join(__dirname, '..', 'build', 'cli', 'cdktf-homelab.js'));
} else {
  const given = (...flags) => flags.some((flag) => args.includes(flag));
  const defaults = [
    ...(given('--port') || process.env.FAKE_PVE_PORT ? [] : ['--port', '18006']),
    ...(given('--state', '--tls-dir') || process.env.FAKE_PVE_TLS_DIR ? [] : ['--state', '.fake-pve']),
    ...(given('--nodes', '--standalone') ? [] : ['--nodes', 'n2,n3']),
  ];
  process.argv = [process.argv[0], 'fake-pve', ...defaults, ...args];
  require(join(__dirname, '..', 'build', 'fake-pve.js'));
}
