// Bundles each domain's handler into one file (build/handlers/<domain>.js) that constructs ship
// into stacks as a TerraformAsset, plus the fake PVE the demo runs and the benchmarks. ssh2's
// optional native addon cannot be bundled: its import becomes a module that throws, so ssh2
// falls back to its pure-JS ciphers.
const { execFileSync } = require('node:child_process');
const { copyFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const esbuild = require('esbuild');
const { loadRegistry } = require('./registry');

const root = join(__dirname, '..');
// The version every bundle reports (the User-Agent of its HTTP requests, src/core/http/request.ts).
const { version } = require('../package.json');
/**
 * What `cdktf-homelab --version` names (issue 28): the version alone for a checkout of its release tag
 * (`v<version>`), else the version with the commit it was built from as semver build metadata
 * (`0.2.0+g1a2b3c4`, `.dirty` with uncommitted changes), so a build of main is never mistaken for the
 * release it will become. Outside a git checkout the commit is unknown and says so.
 */
const buildName = () => {
  const git = (...args) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let commit;
  try {
    commit = git('rev-parse', '--short=12', 'HEAD');
  } catch {
    return `${version}+unknown-commit`;
  }
  const dirty = git('status', '--porcelain', '--untracked-files=no') === '' ? '' : '.dirty';
  const tags = git('tag', '--points-at', 'HEAD').split('\n');
  return tags.includes(`v${version}`) && dirty === '' ? version : `${version}+g${commit}${dirty}`;
};
const build = buildName();
const { DOMAINS } = loadRegistry();
// Self-contained: everything they import goes into the bundle. One handler bundle per domain.
const standalone = {
  ...Object.fromEntries(Object.entries(DOMAINS).map(([domain, { handler }]) => [`handlers/${domain}`, handler])),
  'fake-pve': 'src/simulator/pve/main.ts',
  // `npx cdktf-homelab discover`: the package's bin, with the handlers' clients in it.
  'cli/cdktf-homelab': 'src/cli/main.ts',
  'bench/handler-startup': 'bench/handler-startup.ts',
  'bench/systemd-unit': 'bench/systemd-unit.ts',
  'bench/plan-scale': 'bench/plan-scale.ts',
  'bench/apply-scale': 'bench/apply-scale.ts',
  'bench/destroy-hook': 'bench/destroy-hook.ts',
  'bench/network-apply': 'bench/network-apply.ts',
  'bench/systemd-vs-ansible': 'bench/systemd-vs-ansible.ts',
  'bench/fleet': 'bench/fleet.ts',
};
// Example stacks stay thin: cdktf and its providers are required from node_modules at synth.
const examples = {
  'examples/metrics': 'examples/metrics.ts',
  'examples/network': 'examples/network.ts',
  'examples/systemd': 'examples/systemd.ts',
  'examples/estate': 'examples/estate.ts',
  // The stack bench/plan-scale.ts plans and bench/apply-scale.ts applies, a user's app like the examples.
  'bench/plan-scale-app': 'bench/plan-scale-app.ts',
  'examples/probes': 'examples/probes.ts',
  'examples/kube': 'examples/kube.ts',
  // The removal e2e test's stack (test/e2e/removal.test.ts).
  'e2e/removal-app': 'test/e2e/removal-app.ts',
  // The stack whose units bound to another lose it in one apply (test/e2e/binds.test.ts).
  'e2e/binds-app': 'test/e2e/binds-app.ts',
  // The adoption e2e test's stack (test/e2e/adoption.test.ts).
  'e2e/adoption-app': 'test/e2e/adoption-app.ts',
  // The PVE adoption e2e test's stack (test/e2e/adoption-pve.test.ts).
  'e2e/adoption-pve-app': 'test/e2e/adoption-pve-app.ts',
  // The stack whose KubeRepo settings test/e2e/kube-repo-settings.test.ts changes between applies.
  'e2e/kube-settings-app': 'test/e2e/kube-settings-app.ts',
  // The PVE ownership e2e test's stack (test/e2e/pve-ownership.test.ts).
  'e2e/pve-ownership-app': 'test/e2e/pve-ownership-app.ts',
  // The fleet of issue 30: many SSH hosts and one cluster in one stack (test/e2e/fleet.test.ts, bench/fleet.ts).
  'bench/fleet-app': 'bench/fleet-app.ts',
};

// ssh2's optional `cpu-features` would otherwise stay a require resolved at run time from any
// node_modules above the stack folder: a module planted there would run with the SSH key in reach.
const nativeAddonsThrow = {
  name: 'native-addons-throw',
  setup(build) {
    build.onResolve({ filter: /\.node$|^cpu-features$/ }, (args) => ({ path: args.path, namespace: 'native-addon' }));
    build.onLoad({ filter: /.*/, namespace: 'native-addon' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`native addon ${args.path} is not bundled`)});`,
      loader: 'js',
    }));
  },
};

const bundle = (out, entry, options) =>
  esbuild.build({
    entryPoints: [join(root, entry)],
    outfile: join(root, 'build', `${out}.js`),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    define: { __HOMELAB_VERSION__: JSON.stringify(version), __HOMELAB_BUILD__: JSON.stringify(build) },
    ...options,
  });

const main = async () => {
  for (const [out, entry] of Object.entries(standalone)) {
    if (!existsSync(join(root, entry))) continue;
    const bin = out.startsWith('cli/') ? { banner: { js: '#!/usr/bin/env node' } } : {};
    await bundle(out, entry, { minify: true, legalComments: 'none', plugins: [nativeAddonsThrow], ...bin });
    // Each handler process starts from V8's code cache of its bundle (scripts/handler-code-cache.js says why).
    if (out.startsWith('handlers/')) {
      execFileSync(process.execPath, [join(__dirname, 'handler-code-cache.js'), join(root, 'build', `${out}.js`)], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    }
  }
  for (const [out, entry] of Object.entries(examples)) await bundle(out, entry, { packages: 'external' });
  // The sh destroy hook every stack ships beside its bundles (constructs/core/handler-asset.ts, hookHandler).
  copyFileSync(join(root, 'handlers', 'destroy-hook.sh'), join(root, 'build', 'handlers', 'destroy-hook.sh'));
};

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
