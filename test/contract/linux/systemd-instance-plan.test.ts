/**
 * An instance's first plan on real systemd 252, while its template is not on the host yet: it names the instance
 * as drift, in words, the one apply writes the template and enables (and starts) the instance, and the next plan
 * is clean. systemd cannot say whether an instance of an absent template is enabled, so one declared enabled and
 * stopped read in sync, the apply wrote the template alone, and only the next plan showed the instance as drift.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, instanceSpec, KEY_ENV, unitLinks, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });

const SERVICE =
  '[Unit]\nDescription=first\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const ETC = '/etc/systemd/system';

// Regression: the instance of an absent template read in sync (no state, and stopped as declared), so the first
// apply wrote the template alone and the second plan showed the instance not enabled.
test.each([
  ['stopped', false, 'enables it'],
  ['started', true, 'enables and starts it'],
])(
  'an instance declared enabled and %s, its template not on the host yet, is drift at the first plan',
  async (_, started, does) => {
    const prefix = started ? 'fs' : 'fp';
    const objects = {
      t: { kind: 'systemd-unit', spec: unitSpec(`${prefix}@.service`, SERVICE, { enabled: false, started: false }) },
      i: { kind: 'systemd-instance', spec: instanceSpec(`${prefix}@a.service`, { started }), after: ['t'] },
    };
    const plan = () => invokeBatch(linuxDomain(), hostTarget(host()), objects, env());
    const first = await plan();
    expect(first.result).toMatchObject({
      '.drifted': 't,i',
      'i.in_sync': 'false',
      'i.summary':
        `unit ${prefix}@a.service on 127.0.0.1:${host().port} is absent: its template ${prefix}@.service is not ` +
        `on the host; the apply ${does} once the template is written`,
    });
    const applied = await invokeBatchApply(linuxDomain(), hostTarget(host()), objects, env());
    expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^i: enabled$/m) });
    expect(await unitLinks(host(), `${prefix}@a.service`)).toEqual([
      `${ETC}/multi-user.target.wants/${prefix}@a.service -> ${ETC}/${prefix}@.service`,
    ]);
    expect((await unit.show(`${prefix}@a.service`)).ActiveState).toBe(started ? 'active' : 'inactive');
    expect((await plan()).result).toMatchObject({ '.drifted': '', '.in_sync': 'true' });
  },
);
