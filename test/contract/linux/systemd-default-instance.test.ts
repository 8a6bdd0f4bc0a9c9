/**
 * A template's DefaultInstance= links on real systemd 252 where list-unit-files' one word stood for them: a template
 * declared disabled (the apply's `systemctl disable <template>` unlinked every instance), one whose [Install] names
 * Alias= too, and one whose DefaultInstance= holds a specifier. Each reads its default instance's links in words,
 * the apply acts on those alone, and the next plan is in sync with the other instances' links kept.
 */
import { unitBatch, instanceSpec, unitLinks, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const ETC = '/etc/systemd/system';
const wants = (target: string, name: string) => `${ETC}/${target}.target.wants/${name}`;
const template = (install: string) =>
  `[Unit]\nDescription=default instance\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\n${install}`;
/** The template `t` and its instance `i` (`<prefix>@b.service`, enabled), as one batch. */
const batch = (prefix: string, install: string, enabled: boolean) => ({
  t: { kind: 'systemd-unit', spec: unitSpec(`${prefix}@.service`, template(install), { enabled, started: false }) },
  i: { kind: 'systemd-instance', spec: instanceSpec(`${prefix}@b.service`, { started: false }), after: ['t'] },
});
const to = (prefix: string) => (path: string) => `${path} -> ${ETC}/${prefix}@.service`;

// Regression: the plan said `enabled is true, want false` (list-unit-files says `enabled` for any link named for its
// default instance: measured), and the apply's `systemctl disable dc@.service` unlinked dc@b.service too (measured).
test('a template declared disabled: a link named for its default instance is drift, unlinked alone', async () => {
  const objects = batch('dc', 'WantedBy=multi-user.target\nDefaultInstance=a\n', false);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const hand = wants('basic', 'dc@a.service');
  expect((await host().exec(`mkdir -p ${ETC}/basic.target.wants && ln -s ${ETC}/dc@.service ${hand}`)).code).toBe(0);
  expect((await plan(objects)).result).toMatchObject({
    't.in_sync': 'false',
    't.summary': expect.stringContaining(`links of a unit declared disabled: ${hand}`),
    'i.in_sync': 'true',
  });
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^t: disabled its default instance dc@a/m) });
  expect(await unitLinks(host(), 'dc@a.service')).toEqual([]);
  expect(await unitLinks(host(), 'dc@b.service')).toEqual([wants('multi-user', 'dc@b.service')].map(to('dc')));
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});
