/**
 * A template declared disabled that the apply disables by its own name (`systemctl disable <template>`: its enable's
 * alias there, or its file rewritten) on real systemd 252: that disable unlinks every instance, those this stack does
 * not declare (enabled by hand) too, and the apply left them unlinked. The apply links those again as they were,
 * under /etc and under /run, the plan says so, and the next plan is in sync; the template's default instance, whose
 * links are the template's own, stays unlinked.
 */
import { unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';
import { batch, enableByHand, ETC, RUN, templateLinks, to, wants } from '../../support/template-batch';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const lines = (paths: readonly string[], p: string) => paths.map((path) => `${to(p)(path)}\n`).join('');

// Regression (measured, systemd 252): the plan said nothing of p@foo.service and p@bar.service, enabled by hand; the
// apply's `systemctl disable p@.service` removed their links under /etc and /run, and the next plan was in sync. With
// the file rewritten, the apply first re-enabled them (and p@a.service) then that disable unlinked them: wasted.
test.each([
  [
    'its alias there',
    'du',
    'WantedBy=multi-user.target\nAlias=du-al@.service\nDefaultInstance=a\n',
    '',
    /^t: disabled$/m,
  ],
  [
    'its file rewritten',
    'dw',
    'WantedBy=multi-user.target\nDefaultInstance=a\n',
    '# rewritten\n',
    /^t: wrote .*\nt: disabled$/m,
  ],
])(
  'a template declared disabled, %s: the instances enabled by hand are linked again',
  async (_, p, install, more, says) => {
    expect(await apply(batch(p, install, true))).toMatchObject({ code: 0 });
    await enableByHand(host(), p);
    const handRun = await templateLinks(host(), p, RUN);
    expect(handRun).toContain(`${RUN}/multi-user.target.wants/${p}@bar.service -> `);
    const objects = batch(p, `${install}${more}`, false);
    expect((await plan(objects)).result).toMatchObject({
      't.summary': expect.stringContaining(
        `the apply then links again ${p}@bar.service (under /run, until reboot), ${p}@foo.service, which this stack ` +
          `does not declare and its systemctl disable ${p}@.service unlinks (measured)`,
      ),
    });
    const applied = await apply(objects);
    expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(says) });
    const linked = (where: string, name: string) =>
      `t: linked again ${where}${name}, which this stack does not declare, after its disable\n`;
    expect(applied.stderr).toContain(linked('', `${p}@foo.service`));
    expect(applied.stderr).toContain(linked('under /run (until reboot) ', `${p}@bar.service`));
    expect(applied.stderr).not.toContain('reenabled');
    const aliases = more === '' ? [`${ETC}/${p}-al@b.service`, `${ETC}/${p}-al@foo.service`] : [];
    const own = [...aliases, wants('multi-user', `${p}@b.service`), wants('multi-user', `${p}@foo.service`)];
    expect(await templateLinks(host(), p)).toBe(lines(own, p));
    expect(await templateLinks(host(), p, RUN)).toBe(handRun);
    expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  },
);

// The undo of a failed apply disables the template again, which unlinks them again: it links them back as they were.
test("a failed apply's undo of such a disable puts back the links of the instances enabled by hand", async () => {
  const install = 'WantedBy=multi-user.target\nAlias=dx-al@.service\nDefaultInstance=a\n';
  expect(await apply(batch('dx', install, true))).toMatchObject({ code: 0 });
  const hand = 'systemctl enable dx@foo.service && systemctl enable --runtime dx@bar.service';
  expect((await host().exec(hand)).code).toBe(0);
  const before = [await templateLinks(host(), 'dx'), await templateLinks(host(), 'dx', RUN)];
  const failing = unitSpec('dx-fails.service', '[Service]\nExecStart=/bin/false\n');
  const { t } = batch('dx', install, false);
  const run = await apply({ f: { kind: 'systemd-unit', spec: failing }, t: { ...t, after: ['f'] } });
  expect(run).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(
      /^t: not applied: .*; enabled it again and re-enabled its instances dx@b.service, dx@bar.service, dx@foo.serv/m,
    ),
  });
  expect([await templateLinks(host(), 'dx'), await templateLinks(host(), 'dx', RUN)]).toEqual(before);
});
