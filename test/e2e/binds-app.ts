/**
 * The binds e2e test's app (test/e2e/binds.test.ts): on an SSH host (HOMELAB_SSH_HOST, _PORT, _HOST_KEY), pairs of
 * units where `<d>-app.service` names `<d>-dep.service` in a dependency directive: BindsTo, PartOf and Requires
 * (whose stop systemd propagates to the app), Wants and After (whose stop it does not). HOMELAB_BINDS_STEP: `all`
 * declares every pair; `removed` deletes every dep's construct and changes its app (the directive dropped), so one
 * apply destroys the dep and applies the app; `bt-app`'s drop-in changes in it too. `pk-app` stays `PartOf=` its dep
 * unchanged: the removal stops it and nothing of it changes. A chain a level further down: `ch-mid.service` PartOf=
 * `ch-dep.service` (removed), and PartOf= `ch-mid`, `ch-top.service` unchanged and `ch-app.service` changed.
 */
import { App, TerraformStack } from 'cdktf';
import { renderUnit, SshHost, SystemdDropIn, SystemdUnit } from '../../index';

const env = process.env;
const all = (env.HOMELAB_BINDS_STEP ?? 'all') === 'all';
/** Each app's directive on its dep, by the pair's prefix. */
const PAIRS = { bt: 'BindsTo', po: 'PartOf', rq: 'Requires', wa: 'Wants', af: 'After', pk: 'PartOf' } as const;
/** The pair whose app does not change when its dep goes. */
const KEPT = 'pk';

const service = (what: string, deps: Array<[string, string]> = []) =>
  renderUnit([
    { name: 'Unit', lines: [['Description', what], ...deps] },
    { name: 'Service', lines: [['ExecStart', '/bin/sleep infinity']] },
    { name: 'Install', lines: [['WantedBy', 'multi-user.target']] },
  ]);

const app = new App();
const stack = new TerraformStack(app, 'binds');
const host = new SshHost(stack, 'host', {
  host: env.HOMELAB_SSH_HOST ?? '127.0.0.1',
  port: Number(env.HOMELAB_SSH_PORT ?? 22),
  hostKey: env.HOMELAB_SSH_HOST_KEY ?? '',
  privateKeyEnv: 'HOMELAB_SSH_KEY',
});
for (const [pair, directive] of Object.entries(PAIRS)) {
  const dep = `${pair}-dep.service`;
  if (all) new SystemdUnit(stack, `${pair}-dep`, { host, name: dep, content: service('the bound unit') });
  const bound = all || pair === KEPT;
  const content = bound ? service(`${directive} its dep`, [[directive, dep]]) : service(`once ${directive} its dep`);
  const unit = new SystemdUnit(stack, `${pair}-app`, { host, name: `${pair}-app.service`, content });
  // Its drop-in changes too: judged by its unit's reading, stopped by the same destroy.
  if (pair === 'bt')
    new SystemdDropIn(stack, 'bt-env', {
      unit,
      name: '10-env',
      content: [{ name: 'Service', lines: [['Environment', all ? 'A=1' : 'A=2']] }],
    });
}

// The dep's destroy stops ch-mid, whose stop stops the two PartOf= it: a level below the dep's direct dependents.
if (all) new SystemdUnit(stack, 'ch-dep', { host, name: 'ch-dep.service', content: service('the chain head') });
const part = (what: string, of: string) => service(what, [['PartOf', of]]);
new SystemdUnit(stack, 'ch-mid', { host, name: 'ch-mid.service', content: part('the middle', 'ch-dep.service') });
new SystemdUnit(stack, 'ch-top', { host, name: 'ch-top.service', content: part('kept', 'ch-mid.service') });
const changed = all ? 'PartOf its middle' : 'changed, PartOf its middle';
new SystemdUnit(stack, 'ch-app', { host, name: 'ch-app.service', content: part(changed, 'ch-mid.service') });

app.synth();
