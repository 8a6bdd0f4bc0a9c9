/**
 * The adoption e2e test's app (test/e2e/adoption.test.ts): on an SSH host (HOMELAB_SSH_HOST, _PORT,
 * _HOST_KEY, key in HOMELAB_SSH_KEY), a unit, a template with an instance and a drop-in that the test
 * makes by hand first, and a unit it does not; HOMELAB_ADOPT=1 says adopt: true on the four;
 * HOMELAB_ADOPTION_STEP `retired` retires the four, `removed` takes them out of the code; HOMELAB_STACK_ID
 * names the stack in its marks (the context cdktf-homelab:stackId), as a second stack's app would.
 */
import { App, TerraformStack } from 'cdktf';
import { SshHost, SystemdDropIn, SystemdUnit } from '../../index';

const env = process.env;
const adopt = env.HOMELAB_ADOPT === '1';
const SLEEPER = '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';

// A second stack (issue 27): the same app in another folder, its marks naming HOMELAB_STACK_ID.
const stackId = env.HOMELAB_STACK_ID;
const app = new App(stackId === undefined ? {} : { context: { 'cdktf-homelab:stackId': stackId } });
const stack = new TerraformStack(app, 'adoption');
const host = new SshHost(stack, 'host', {
  host: env.HOMELAB_SSH_HOST ?? '127.0.0.1',
  port: Number(env.HOMELAB_SSH_PORT ?? 22),
  hostKey: env.HOMELAB_SSH_HOST_KEY ?? '',
  privateKeyEnv: 'HOMELAB_SSH_KEY',
});
const step = env.HOMELAB_ADOPTION_STEP ?? 'declared';
if (step !== 'removed') {
  const retired = step === 'retired';
  const hand = new SystemdUnit(stack, 'hand', { host, name: 'hand.service', content: SLEEPER, adopt, retired });
  const probe = new SystemdUnit(stack, 'probe', {
    host,
    name: 'probe@.service',
    content: SLEEPER,
    enabled: false,
    started: false,
    adopt,
    retired,
  });
  probe.instance('x', { adopt, retired });
  const nice = '[Service]\nNice=5\n';
  new SystemdDropIn(stack, 'limits', { unit: hand, name: '10-hand', content: nice, adopt, retired });
}
new SystemdUnit(stack, 'fresh', { host, name: 'fresh.service', content: SLEEPER });
app.synth();
