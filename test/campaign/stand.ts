/**
 * The campaign's stand: the targets, the user project around the campaign's app, and the checks of one
 * moment made independently of the handlers (verify-*.ts), plus what a faulted apply may leave on this
 * machine: relay sockets, temp files, handler processes still running, an unreadable state file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CdktfProject, type CommandOutcome } from '../support/cdktf-project';
import { handlersIn } from './processes';
import type { Targets } from './targets';
import { hostDiffs } from './verify-host';
import { kubeDiffs } from './verify-kube';
import { pveDiffs } from './verify-pve';
import type { Variant } from './variant';

const ROOT = join(__dirname, '..', '..');
const APP = join('build', 'campaign', 'app.js');

export interface Stand {
  readonly targets: Targets;
  readonly project: CdktfProject;
  /** Where the handlers' memories go (XDG_RUNTIME_DIR). */
  readonly runtimeDir: string;
  /** Each node's running interfaces file before the campaign, for a hand's repair. */
  readonly pristine: Readonly<Record<string, string>>;
}

/** Bundles the app the way the examples are (cdktf from node_modules), so the project can synthesize it. */
export const bundleApp = () =>
  build({
    entryPoints: [join(ROOT, 'test', 'campaign', 'app.ts')],
    outfile: join(ROOT, APP),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    logLevel: 'warning',
  });

export const openStand = async (targets: Targets, runtimeDir: string, pristine: Record<string, string>) => {
  mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
  const project = new CdktfProject(APP, 'faults', targets.env);
  return { targets, project, runtimeDir, pristine };
};

export const synth = (stand: Stand, v: Variant): Promise<CommandOutcome> =>
  stand.project.must(`synth ${v}`, stand.project.synth({ HOMELAB_FAULTS_VARIANT: v }));

/** `plan -detailed-exitcode`: 0 clean, 2 changes, 1 failed. */
export const plan = (stand: Stand): Promise<CommandOutcome> =>
  stand.project.terraform('plan', '-detailed-exitcode', '-no-color', '-lock-timeout=30s');

export const apply = (stand: Stand): Promise<CommandOutcome> =>
  stand.project.terraform('apply', '-auto-approve', '-no-color', '-lock-timeout=30s');

/** Every file below `dir` whose name starts with a dot (a temp file of a write that never finished). */
const hiddenFilesUnder = (dir: string): string[] =>
  !existsSync(dir)
    ? []
    : readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return hiddenFilesUnder(path);
        return entry.name.startsWith('.') ? [path] : [];
      });

/**
 * Files a faulted run may leave on this machine: relay files, temp files. No plan can see them, so they are never a
 * lie (round.ts), but a stand that holds one has not converged.
 */
export const leftovers = (stand: Stand): string[] => {
  const relay = join(stand.project.stackDir, '.terraform', 'cdktf-homelab-relay');
  const sockets = existsSync(relay) ? readdirSync(relay).map((name) => `${join(relay, name)} is left over`) : [];
  return [...sockets, ...hiddenFilesUnder(stand.runtimeDir).map((path) => `${path} is left over`)];
};

/** What a faulted apply may leave on this machine. */
export const localDiffs = (stand: Stand): string[] => {
  const running = handlersIn(stand.project.stackDir).map(
    (handler) => `a ${handler.domain} handler (${handler.verb}, pid ${handler.pid}) is still running`,
  );
  return [...leftovers(stand), ...running, ...stateDiffs(stand)];
};

export const stateDiffs = (stand: Stand): string[] => {
  if (!existsSync(stand.project.statePath)) return [];
  try {
    JSON.parse(readFileSync(stand.project.statePath, 'utf8'));
    return [];
  } catch (error) {
    return [`the state file is not valid JSON: ${(error as Error).message}`];
  }
};

/**
 * Everything that differs from variant `v`, read from the targets' own APIs and files; `hand` false leaves out the
 * links of the instances enabled by hand (hostDiffs).
 */
export const verify = async (stand: Stand, v: Variant, hand = true): Promise<string[]> => {
  const { pve, cert, host, kube } = stand.targets;
  const [onPve, onHost, onKube] = await Promise.all([
    pveDiffs(pve, cert.cert, v).catch((error: Error) => [`PVE could not be read: ${error.message}`]),
    hostDiffs(host, v, hand).catch((error: Error) => [`the host could not be read: ${error.message}`]),
    kubeDiffs(kube.server, v).catch((error: Error) => [`the API server could not be read: ${error.message}`]),
  ]);
  return [...onPve, ...onHost, ...onKube, ...localDiffs(stand)];
};
