// A user's app in plain JavaScript, where no compiler catches a misspelled or missing prop: five mistakes in
// three constructs of one stack, beside a stack without any. all-problems.test.ts synthesizes it.
const { App, TerraformStack } = require('cdktf');
const {
  KubeCluster,
  KubeRepo,
  ProxmoxCluster,
  ProxmoxMetricServer,
  SshHost,
  SystemdUnit,
} = require('../../../../index');

/** The app, writing to `outdir`; `skipValidation` as a user may set it. */
exports.fiveMistakesApp = (outdir, skipValidation) => {
  const app = new App({ outdir, skipValidation });
  const fine = new TerraformStack(app, 'fine');
  new ProxmoxCluster(fine, 'pve', { endpoints: ['https://n1:8006'] });
  const lab = new TerraformStack(app, 'lab');
  const cluster = new ProxmoxCluster(lab, 'pve', { endpoints: ['https://n1:8006'] });
  // the port left out, the bucket misspelled
  new ProxmoxMetricServer(lab, 'metrics', { cluster, id: 'influx', type: 'influxdb', server: 'h', bukcet: 'lab' });
  const host = new SshHost(lab, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  // a unit name without its type
  new SystemdUnit(lab, 'agent', { host, name: 'agent', content: '[Service]\nExecStart=/bin/true\n' });
  const kube = new KubeCluster(lab, 'home', {});
  // a namespace in capitals, a url with a token in it
  const url = 'https://TOKEN@git.example/me/site.git';
  new KubeRepo(lab, 'site', { cluster: kube, namespace: 'Jr2', key: 'site', url, identity: 'git.example/me/site' });
  return app;
};
