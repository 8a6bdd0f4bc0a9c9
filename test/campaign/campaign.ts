/**
 * The fault campaign (issue 26): a stand of real targets, the stack applied once without faults, then each round
 * flips it to the other variant under a seeded fault and counts how it converged. A round that never converges
 * is repaired by hand (everything of the campaign's wiped from the targets and the state, then applied afresh),
 * so every round starts from a converged stand and `--only R` replays round R from the same starting point.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crPath } from '../support/kube-crds';
import { kubeRequest } from '../support/kube-http';
import { calibrate, type Calibration } from './calibrate';
import { planFault, type FaultType } from './faults';
import { formatReport } from './report';
import { runRound, startingVariant, type RoundResult } from './round';
import { apply, bundleApp, openStand, synth, verify, type Stand } from './stand';
import { startTargets } from './targets';
import { enableByHand } from './verify-host';
import { PREFIX, PVE_NODES, repos, type Variant } from './variant';

export interface CampaignOptions {
  readonly seed: number;
  readonly rounds: number;
  /** Run this round only (from its own starting variant), for a replay. */
  readonly only?: number;
  /** Run only those of rounds 1..rounds whose fault is of this type, each from its own starting variant. */
  readonly type?: FaultType;
  readonly log: (line: string) => void;
}

export interface CampaignReport {
  readonly results: RoundResult[];
  readonly calibration: Calibration;
  /** The table and every failing round with its replay command. */
  readonly text: string;
  /** No round needed a hand and no plan lied, the calibration's included. */
  readonly ok: boolean;
}

/** A hand: everything of the campaign's removed from the targets and the state, out of band. */
const wipe = async (stand: Stand): Promise<void> => {
  const { host, pve, kube } = stand.targets;
  const script = [
    "units=$(systemctl list-units --all --plain --no-legend 'fa-*' | awk '{print $1}')",
    '[ -z "$units" ] || systemctl stop $units',
    'rm -rf /etc/systemd/system/fa-* /etc/systemd/system/.fa-* /etc/systemd/system/*.wants/fa-* /var/lib/cdktf-homelab',
    'rm -f /run/systemd/system/*.wants/fa-*',
    'systemctl daemon-reload',
    'systemctl reset-failed',
  ].join('\n');
  await host.exec(script);
  for (const id of Object.keys(pve.metricServers()).filter((name) => name.startsWith(PREFIX)))
    pve.deleteMetricServer(id);
  for (const node of PVE_NODES) pve.setInterfacesFiles(node, { running: stand.pristine[node] });
  for (const repo of repos('a')) {
    await kubeRequest(kube.server.admin, 'DELETE', crPath(kube.server.namespace, 'repos', repo.key));
  }
  rmSync(stand.project.statePath, { force: true });
  rmSync(`${stand.project.statePath}.backup`, { force: true });
  rmSync(join(stand.project.stackDir, '.terraform', 'cdktf-homelab-relay'), { recursive: true, force: true });
};

/**
 * Applies `v` on a converged or wiped stand, enables the template's HAND_INSTANCES, and fails when the targets or
 * the plan then differ.
 */
const settle = async (stand: Stand, v: Variant, why: string): Promise<void> => {
  await synth(stand, v);
  const applied = await apply(stand);
  if (applied.code === 0) await enableByHand(stand.targets.host);
  const diffs = await verify(stand, v);
  if (applied.code !== 0 || diffs.length > 0) {
    const output = `${applied.stdout.slice(-3000)}\n${applied.stderr}`;
    throw new Error(`${why}: apply of variant ${v} exited ${applied.code}: ${diffs.join('; ')}\n${output}`);
  }
};

/** The rounds to run: `only`, or 1..rounds (those of `type` alone when it is set). */
const roundsOf = ({ only, rounds, type, seed }: CampaignOptions): number[] => {
  if (only !== undefined) return [only];
  const all = Array.from({ length: rounds }, (_, i) => i + 1);
  return type === undefined ? all : all.filter((round) => planFault(seed, round).type === type);
};

export const runCampaign = async (options: CampaignOptions): Promise<CampaignReport> => {
  await bundleApp();
  const workDir = mkdtempSync(join(tmpdir(), 'homelab-faults-'));
  const targets = await startTargets(workDir);
  try {
    const pristine = Object.fromEntries(PVE_NODES.map((node) => [node, targets.pve.interfacesFiles(node).running]));
    const stand = await openStand(targets, join(workDir, 'runtime'), pristine);
    const rounds = roundsOf(options);
    const first = rounds[0] ?? 1;
    await synth(stand, startingVariant(first));
    await stand.project.must('init', stand.project.terraform('init', '-no-color'));
    await settle(stand, startingVariant(first), 'the stand does not converge without a fault');
    options.log(`stand ready: variant ${startingVariant(first)} applied and verified (${workDir})`);
    const calibration = await calibrate(stand, startingVariant(first));
    options.log(calibration.line);
    const results: RoundResult[] = [];
    let at = startingVariant(first);
    for (const round of rounds) {
      if (at !== startingVariant(round)) await settle(stand, startingVariant(round), `round ${round}'s start`);
      const result = await runRound(stand, options.seed, round, options.log);
      at = result.variant;
      results.push(result);
      if (result.outcome === 'never') {
        await wipe(stand);
        await settle(stand, result.variant, `round ${round}: the hand's repair did not converge`);
      }
    }
    const { text, ok } = formatReport(results, options.seed);
    stand.project.cleanup();
    return { results, calibration, text: `${calibration.line}\n${text}`, ok: ok && !calibration.lied };
  } finally {
    await targets.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
};
