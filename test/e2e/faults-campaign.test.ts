/**
 * The short fault campaign (issue 26, npm run faults): one seeded cycle of rounds, every fault type once, each
 * flipping the stack between its variants under a fault and checking the PVE simulator, the real systemd host
 * and the real kube-apiserver through their own APIs. No round may need a hand and no plan may be clean while a
 * target differs; a failure prints each failing round's replay command.
 */
import { runCampaign } from '../campaign/campaign';
import { FAULT_TYPES } from '../campaign/faults';
import { failed } from '../campaign/report';

const SEED = 26;
/**
 * One cycle: planFault draws types in seeded cycles of every type, so FAULT_TYPES.length rounds cover each once. Two
 * rounds more (12 until 2026-12-05) repeated two types at other instants, 26-49 s each at CI's load; more rounds at
 * other seeds are `npm run faults`'s job.
 */
const ROUNDS = FAULT_TYPES.length;

jest.setTimeout(30 * 60_000);

/**
 * `.ci/run` sets CDKTF_HOMELAB_CAMPAIGN_ELSEWHERE in its Node 20 pass: the campaign runs in the OpenTofu pass beside
 * it, and its 180-290 s (CI, both passes side by side on 2 cores) ran twice. `npm test` alone runs it.
 */
const campaignHere = process.env.CDKTF_HOMELAB_CAMPAIGN_ELSEWHERE === undefined;

(campaignHere ? test : test.skip)(
  'every fault type interrupts an apply, each round converges by the second apply, and no plan lies',
  async () => {
    const report = await runCampaign({ seed: SEED, rounds: ROUNDS, log: (line) => console.log(line) });
    console.log(report.text);
    expect(new Set(report.results.map((result) => result.plan.type))).toEqual(new Set(FAULT_TYPES));
    const failing = report.results
      .filter(failed)
      .map((result) => `round ${result.round}: ${result.findings.join(' / ')}`);
    expect(failing).toEqual([]);
    expect(report.calibration.line).toMatch(/the plan names it$/);
  },
);
