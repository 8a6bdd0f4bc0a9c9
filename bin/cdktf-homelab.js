#!/usr/bin/env node
// cdktf-homelab's command line: `fake-pve` runs the PVE simulator the tests use (src/simulator/pve, bundled to
// build/fake-pve.js, whose defaults are what examples/network.ts expects) as a simulator a user's stack or CI job
// can plan and apply against; without it a stranger had nothing to run what the examples point at.
// Every other command (`discover`, `prune-record`) is build/cli/cdktf-homelab.js's.
'use strict';
const { join } = require('node:path');

const [command] = process.argv.slice(2);
if (command !== 'fake-pve') {
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(
      'cdktf-homelab fake-pve [flags]   a PVE simulator (fake-pve --help: its flags and defaults)\n',
    );
  }
  require(join(__dirname, '..', 'build', 'cli', 'cdktf-homelab.js'));
} else {
  // The bundle reads its flags from argv[2] on, as when it runs alone.
  process.argv = [process.argv[0], 'fake-pve', ...process.argv.slice(3)];
  require(join(__dirname, '..', 'build', 'fake-pve.js'));
}
