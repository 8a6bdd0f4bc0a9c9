/**
 * Whether a unit can be enabled at all (src/linux/unit-enable.ts): the one rule synth, the handler's spec boundary,
 * the read and the apply share. Regression: a unit or instance declared enabled whose [Install] (its template's)
 * names nothing to link planned an enable that `systemctl enable` only warned about, and the next plan was clean.
 */
import { parseAs } from '../../../../src/core/parse';
import { renderUnit } from '../../../../src/linux/render-unit';
import { unitSpec } from '../../../../src/linux/systemd-unit';
import { diffUnit } from '../../../../src/linux/unit-diff';
import { cannotEnableInstance, installConfigOf } from '../../../../src/linux/unit-enable';
import { live, spec } from './unit-fixtures';

const STATIC = '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/true\n';
const RULE =
  'spec.enabled: must be false for a unit whose [Install] names no WantedBy=, RequiredBy=, Alias= or Also=, got true ' +
  '(systemctl enable makes no link for it: systemd calls it static)';

describe('installConfigOf', () => {
  test.each([
    ['no [Install]', STATIC, false],
    ['an empty [Install]', `${STATIC}[Install]\n`, false],
    ['a WantedBy= in another section', '[Service]\nWantedBy=multi-user.target\n', false],
    ['WantedBy=', `${STATIC}[Install]\nWantedBy=multi-user.target\n`, true],
    ['RequiredBy=', `${STATIC}[Install]\nRequiredBy=a.target\n`, true],
    ['Alias=', `${STATIC}[Install]\nAlias=y.service\n`, true],
    ['Also=', `${STATIC}[Install]\nAlso=z.socket\n`, true],
    ['DefaultInstance=', `${STATIC}[Install]\nDefaultInstance=a\n`, true],
    ['a value in [Install] (text with values)', { pieces: ['[Install]\nWantedBy=', '${v}', '\n'] }, true],
    ['a value outside [Install]', { pieces: ['[Unit]\nDescription=', '${v}', '\n'] }, false],
  ])('%s', (_, content, has) => {
    expect(installConfigOf(content)).toBe(has);
  });

  test('sections decide from known names and keys only: a Terraform value there cannot be judged', () => {
    const masked = (text: string) => (text.includes('${') ? 'x' : text);
    const sections = (name: string, key: string) => renderUnit([{ name, lines: [[key, 'a.target']] }]);
    expect(installConfigOf(sections('Install', 'WantedBy'), masked)).toBe(true);
    expect(installConfigOf(sections('Service', 'ExecStart'), masked)).toBe(false);
    expect(installConfigOf(sections('${name}', 'WantedBy'), masked)).toBeUndefined();
    expect(installConfigOf(sections('Install', '${key}'), masked)).toBeUndefined();
  });
});

describe('the handler boundary', () => {
  const unit = { name: 'plain.service', directory: '/etc/systemd/system', content: STATIC, started: true };
  test('refuses a unit spec declared enabled whose content has no [Install] setting, in the rule of synth', () => {
    expect(() => parseAs(unitSpec, { ...unit, enabled: true }, 'spec')).toThrow(RULE);
  });

  test('takes it declared disabled, and one whose content has an [Install] setting', () => {
    expect(parseAs(unitSpec, { ...unit, enabled: false }, 'spec').enabled).toBe(false);
    const linked = { ...unit, enabled: true, content: `${STATIC}[Install]\nWantedBy=multi-user.target\n` };
    expect(parseAs(unitSpec, linked, 'spec').enabled).toBe(true);
  });
});

describe('an instance whose template cannot be enabled', () => {
  const instance = { ...spec, name: 'st@a.service', content: undefined, enabled: true };

  test('reads as drift in words when systemd calls the template on the host static', () => {
    expect(diffUnit(instance, live({ unitFileState: 'static' }))).toMatchObject({
      enabled: {
        live:
          'static: its template st@.service on the host names no WantedBy=, RequiredBy=, Alias= or Also= in ' +
          '[Install], so it cannot be enabled',
        want: true,
      },
    });
    expect(diffUnit({ ...instance, enabled: false }, live({ unitFileState: 'static' }))).toEqual({});
  });

  test.each([
    ['the template the batch writes has none', STATIC, 'enabled', /names no WantedBy=/],
    ['the template the batch writes has one', `${STATIC}[Install]\nWantedBy=a.target\n`, 'static', undefined],
    ['the host says static, no template in the batch', undefined, 'static', /^static: its template st@.service/],
    ['the host says disabled, no template in the batch', undefined, 'disabled', undefined],
  ])('the apply refuses it when %s', (_, template, state, refused) => {
    const why = cannotEnableInstance({ enabled: true, template: 'st@.service' }, template, state);
    if (refused === undefined) expect(why).toBeUndefined();
    else expect(why).toMatch(refused);
    expect(cannotEnableInstance({ enabled: false, template: 'st@.service' }, template, state)).toBeUndefined();
  });
});
