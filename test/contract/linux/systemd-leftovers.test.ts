/**
 * What the stack leaves under /var/lib/cdktf-homelab once its objects are gone, on real systemd 252. Regression: a
 * drop-in's destroy leaves a trace of the file it removed (drop-in-traces.ts) for the batch apply after it, and a
 * destroy of the whole stack runs no batch apply, so every trace stayed after its unit was gone and nothing ever
 * cleared it; a trace the batch apply cleared left its unit's directory under removed/, empty.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { clearTraceStep, traceDropInStep } from '../../../src/linux/drop-in-traces';
import { invoke, invokeBatchApply } from '../../support/run-handler';
import { askRootHelper, hostTarget, KEY_ENV, unitSpec, useSystemdHost, variantDropIn } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const STATE = '/var/lib/cdktf-homelab';
const service = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const env = () => ({ [KEY_ENV]: host().privateKey });
/** Every path under the state directory and systemd's unit directories that names `unit`. */
const leftOf = async (unitName: string) =>
  (await host().exec(`find ${STATE} /etc/systemd/system /run/systemd/system -path '*${unitName}*' | sort`)).stdout;

test("a unit and its drop-ins destroyed, the stack's way, leave nothing of theirs on the host", async () => {
  const dropIns = [variantDropIn('lv-a.service', 'a'), { ...variantDropIn('lv-a.service', 'b'), name: '20-w' }];
  const runtime = { ...variantDropIn('lv-a.service', 'c'), name: '30-r', directory: '/run/systemd/system' };
  const objects = {
    u: { kind: 'systemd-unit', spec: unitSpec('lv-a.service', service) },
    ...Object.fromEntries(
      [...dropIns, runtime].map((spec, i) => [`d${i}`, { kind: 'systemd-drop-in', spec, after: ['u'] }]),
    ),
  };
  const applied = await invokeBatchApply(linuxDomain(), hostTarget(host()), objects, env());
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: started$/m) });
  // As terraform destroy runs the hooks: each drop-in before its unit (its lifecycle depends on the unit's).
  for (const { unit: of, name, directory } of [...dropIns, runtime]) {
    const destroyed = await invoke(
      linuxDomain(),
      'systemd-drop-in',
      'destroy',
      hostTarget(host()),
      { unit: of, name, directory },
      env(),
    );
    expect(destroyed).toMatchObject({ code: 0, stderr: expect.stringContaining(': removed') });
  }
  expect((await unit.run('destroy', unitSpec('lv-a.service', service))).code).toBe(0);
  expect(await leftOf('lv-a.service')).toBe('');
});

test('a trace the batch apply clears leaves no directory of its unit under removed/', async () => {
  const dropIn = variantDropIn('lv-b.service', 'b');
  const traced = await askRootHelper(host(), [traceDropInStep(dropIn, { time: 1.5, file: '8:1' })]);
  expect(traced).toMatchObject({ code: 0 });
  const dir = `${STATE}/removed/etc/systemd/system/lv-b.service.d`;
  expect(await leftOf('lv-b.service')).toBe(`${dir}\n${dir}/10-v.conf\n`);
  expect(await askRootHelper(host(), [clearTraceStep(dropIn)])).toMatchObject({ code: 0 });
  expect(await leftOf('lv-b.service')).toBe('');
});
