// The metrics example's stack with its state in PostgreSQL (cdktf's PgBackend), which test/e2e/pg-backend.test.ts
// synthesizes so that several terraform runs share one state and its lock, as a team's runners do. The connection
// string stays out of the stack: terraform reads it from PG_CONN_STR, as it would a password in it.
'use strict';
const { App, PgBackend } = require('cdktf');
const { MetricsStack } = require('../../../build/examples/metrics.js');

const app = new App();
const stack = new MetricsStack(app, 'metrics', {
  endpoints: [process.env.PROXMOX_VE_ENDPOINT],
  caFile: process.env.PROXMOX_VE_CA_FILE,
});
new PgBackend(stack, { connStr: undefined, schemaName: 'homelab' });
app.synth();
