import { maskOutOfReach, maskWords, unmaskAdvice, unmaskedPaths } from '../../../../src/linux/unit-mask';

const spec = { name: 'a.service', directory: '/etc/systemd/system', unmask: true };
const masked = (fragmentPath?: string) => ({ loadState: 'masked', unitFileState: 'masked', fragmentPath });

test('the helper unmasks in the unit directory, /etc/systemd/system and /run/systemd/system, each once', () => {
  expect(unmaskedPaths(spec)).toEqual(['/etc/systemd/system/a.service', '/run/systemd/system/a.service']);
  expect(unmaskedPaths({ ...spec, directory: '/usr/local/lib/systemd/system' })).toEqual([
    '/usr/local/lib/systemd/system/a.service',
    '/etc/systemd/system/a.service',
    '/run/systemd/system/a.service',
  ]);
});

test('a mask out of reach is named in the advice, unmask or not; one in reach keeps the old words', () => {
  const control = '/run/systemd/system.control/a.service';
  expect(maskOutOfReach(spec, masked(control))).toBe(control);
  const refused =
    `the apply refuses it: ${control} masks it, which neither the apply's unmask nor systemctl unmask removes ` +
    `(measured); remove it by hand (rm ${control}) and apply again`;
  expect(unmaskAdvice(spec, masked(control))).toBe(refused);
  expect(unmaskAdvice({ ...spec, unmask: false }, masked(control))).toBe(refused);
  expect(maskOutOfReach(spec, masked('/etc/systemd/system/a.service'))).toBeUndefined();
  expect(unmaskAdvice(spec, masked('/etc/systemd/system/a.service'))).toBe('apply unmasks it (unmask: true)');
  expect(unmaskAdvice({ ...spec, unmask: false }, masked())).toBe(
    'set unmask: true to let apply unmask it, or run systemctl unmask a.service on the host',
  );
  expect(maskOutOfReach(spec, { loadState: 'loaded', unitFileState: 'enabled', fragmentPath: control })).toBe(
    undefined,
  );
});

// The plan said how to unmask a unit the apply then refused, under a warning promising convergence.
test("the plan's words say the apply refuses a masked unit unless it unmasks it", () => {
  const advice = 'set unmask: true to let apply unmask it, or run systemctl unmask a.service on the host';
  expect(maskWords({ ...spec, unmask: false }, masked())).toBe(`the apply refuses it: ${advice}`);
  expect(maskWords(spec, masked('/etc/systemd/system/a.service'))).toBe('apply unmasks it (unmask: true)');
  const control = '/run/systemd/system.control/a.service';
  for (const unmask of [true, false])
    expect(maskWords({ ...spec, unmask }, masked(control))).toBe(unmaskAdvice(spec, masked(control)));
});
