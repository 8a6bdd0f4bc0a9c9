/**
 * A Terraform value in a known [Install] line (`WantedBy=${var}`) counts as a setting at synth, so a unit declared
 * enabled (or leaving `enabled` out) passes synth whatever the value. Known at plan and empty, it leaves the unit
 * nothing to link: the plan and the apply get the value in the spec, and judge the text as systemd will read it.
 * Measured here: the plan says the apply's refusal, and the apply refuses before any change.
 */
import { Testing, TerraformStack } from 'cdktf';
import { linuxDomain } from '../../../../handlers/linux/domain';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { renderUnit } from '../../../../src/linux/render-unit';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../../support/run-handler';
import { stringVariable } from '../../../support/terraform-value';
import { fakeSystemd, TARGET } from './fake-systemd';

const SERVICE = '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/sleep infinity\n';
const CANNOT =
  'its file names no WantedBy=, RequiredBy=, Alias= or Also= in [Install], nor does a drop-in of it, so it cannot ' +
  'be enabled';

type Form = 'text' | 'sections' | 'drop-in';

/** The batch a stack synthesizes with `WantedBy=<variable>` in the form given, `value` put for the variable. */
const batchOf = (form: Form, value: string, enabled?: boolean): Record<string, ApplyEntry> => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'n2', {
    host: 'h',
    port: 22,
    user: 'root',
    hostKey: TARGET.hostKey,
    privateKeyEnv: 'K',
  });
  const { token, substitute } = stringVariable(stack, 'wanted_by', value);
  const content =
    form === 'text'
      ? `${SERVICE}[Install]\nWantedBy=${token}\n`
      : form === 'sections'
        ? renderUnit([
            { name: 'Service', lines: [['ExecStart', '/bin/sleep infinity']] },
            { name: 'Install', lines: [['WantedBy', token]] },
          ])
        : SERVICE;
  const unit = new SystemdUnit(stack, 'u', {
    host,
    name: 'v.service',
    content,
    ...(enabled === undefined ? {} : { enabled }),
  });
  const batch: Record<string, ApplyEntry> = { u: { kind: 'systemd-unit', spec: substitute(unit.spec) } };
  if (form !== 'drop-in') return batch;
  const dropIn = new SystemdDropIn(stack, 'd', { unit, name: '10-install', content: `[Install]\nWantedBy=${token}\n` });
  return { ...batch, d: { kind: 'systemd-drop-in', spec: substitute(dropIn.spec), after: ['u'] } };
};

const planAndApply = async (objects: Record<string, ApplyEntry>) => {
  const host = fakeSystemd();
  const domain = linuxDomain(async () => host.remote);
  const plan = (await invokeBatch(domain, TARGET, objects, { K: 'key' })).result ?? {};
  const applied = await invokeBatchApply(domain, TARGET, objects, { K: 'key' });
  return { host, plan, applied };
};

describe('WantedBy= of a Terraform value known at plan', () => {
  test.each([
    ['text', true],
    ['text', undefined],
    ['sections', true],
    ['drop-in', true],
  ] as const)(
    'in %s, empty, enabled %s: the plan says the refusal, the apply refuses before any change',
    async (form, enabled) => {
      const objects = batchOf(form, '', enabled);
      expect(objects.u?.spec).toMatchObject({ enabled: true });
      const { host, plan, applied } = await planAndApply(objects);
      expect(JSON.parse(plan['u.diff'] ?? '{}')).toMatchObject({ enabled: { live: CANNOT, want: true } });
      expect(applied.code).not.toBe(0);
      expect(applied.stderr).toContain(`u: not applied: v.service on h:22 is declared enabled: ${CANNOT}: `);
      expect(host.files.has('/etc/systemd/system/v.service')).toBe(false);
    },
  );

  test.each(['text', 'sections', 'drop-in'] as const)('in %s, a target: enabled by one apply', async (form) => {
    const { plan, applied } = await planAndApply(batchOf(form, 'multi-user.target', true));
    expect(plan['u.in_sync']).toBe('false');
    expect(plan['u.diff']).not.toContain('cannot be enabled');
    expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: enabled$/m) });
  });
});
