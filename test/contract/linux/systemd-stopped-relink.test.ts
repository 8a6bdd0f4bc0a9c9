/**
 * An apply stopped between a template's disable by its own name and the links it then makes again for the instances
 * this stack does not declare (unit-template-disable.ts `linkedAgain`), on real systemd 252. The stop is the SSH
 * session lost at the first of those links (a `systemctl` ahead of systemd's on root's PATH kills its session's
 * sshd): the template is disabled, its hand-enabled instances unlinked, its intent left. Regression: the next plan
 * said the template was left half-applied and nothing of them, and the next apply left them unlinked for good (no
 * link said they had been there). Its intent names them now: the plan says so, the apply links them again as they
 * were, and the plan after it is in sync.
 */
import { useSessionStopper } from '../../support/session-stopper';
import { unitBatch, useSystemdHost } from '../../support/unit-host';
import { batch, enableByHand, RUN, templateLinks } from '../../support/template-batch';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const stopper = useSessionStopper(host);

test('a template disabled by an apply stopped before it linked the instances enabled by hand again', async () => {
  const install = 'WantedBy=multi-user.target\nAlias=ds-al@.service\nDefaultInstance=a\n';
  expect(await apply(batch('ds', install, true))).toMatchObject({ code: 0 });
  await enableByHand(host(), 'ds');
  const before = [await templateLinks(host(), 'ds'), await templateLinks(host(), 'ds', RUN)];
  expect(before.join('')).toContain('ds@foo.service -> ');
  expect(before.join('')).toContain('ds@bar.service -> ');

  await stopper.put('enable', 'ds@foo.service');
  const objects = batch('ds', install, false);
  const stopped = await apply(objects);
  expect(stopped).toMatchObject({ code: 1, stderr: expect.stringContaining('lost during apply') });
  expect(await stopper.fired()).toBe(true); // it stopped that apply, at that step
  const intent = (await host().exec("cat '/var/lib/cdktf-homelab/intents/ds@.service'")).stdout;
  expect(intent).toContain(' relink=etc:ds@foo.service relink=run:ds@bar.service');
  const unlinked = (await templateLinks(host(), 'ds')) + (await templateLinks(host(), 'ds', RUN));
  expect(unlinked).not.toContain('ds@foo.service');
  expect(unlinked).not.toContain('ds@bar.service');

  const planned = await plan(objects);
  expect(planned.result).toMatchObject({
    '.in_sync': 'false',
    't.summary': expect.stringContaining(
      'the apply links again ds@bar.service (under /run), ds@foo.service, which this stack does not declare and ' +
        'an apply stopped after its systemctl disable ds@.service left unlinked',
    ),
  });
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 0 });
  const after = [await templateLinks(host(), 'ds'), await templateLinks(host(), 'ds', RUN)];
  expect(after[0]).toContain('/multi-user.target.wants/ds@foo.service -> ');
  expect(after[1]).toContain('/multi-user.target.wants/ds@bar.service -> ');
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});

// Regression (measured, systemd 252): a template declared enabled whose file the apply rewrites re-enables its
// instances (unit-relink.ts `instancesToReenable`): the root helper's reenable of the template runs `systemctl disable
// --runtime` of it first, which unlinks every instance's /run links, and the instances enabled until reboot are linked
// there again in a later pass. An apply stopped in between left dz@bar.service unlinked; the next plan said only
// "left half-applied", and the next apply left it so, with the plan after it in sync.
test('a template rewritten by an apply stopped before it linked the instances enabled by hand again', async () => {
  const install = 'WantedBy=multi-user.target\nDefaultInstance=a\n';
  expect(await apply(batch('dz', install, true))).toMatchObject({ code: 0 });
  await enableByHand(host(), 'dz');
  expect(await templateLinks(host(), 'dz', RUN)).toContain('/multi-user.target.wants/dz@bar.service -> ');

  await stopper.put('reenable', 'dz@foo.service');
  const objects = batch('dz', `${install}# rewritten\n`, true);
  const stopped = await apply(objects);
  expect(stopped).toMatchObject({ code: 1, stderr: expect.stringContaining('lost during apply') });
  expect(await stopper.fired()).toBe(true);
  const intent = (await host().exec("cat '/var/lib/cdktf-homelab/intents/dz@.service'")).stdout;
  expect(intent).toContain(' relink=etc:dz@foo.service relink=run:dz@bar.service');
  expect(await templateLinks(host(), 'dz', RUN)).not.toContain('dz@bar.service');

  expect((await plan(objects)).result).toMatchObject({
    '.in_sync': 'false',
    't.summary': expect.stringContaining(
      'the apply links again dz@bar.service (under /run), which this stack does not declare and an apply stopped ' +
        'after its systemctl disable dz@.service left unlinked',
    ),
  });
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect(await templateLinks(host(), 'dz')).toContain('/multi-user.target.wants/dz@foo.service -> ');
  expect(await templateLinks(host(), 'dz', RUN)).toContain('/multi-user.target.wants/dz@bar.service -> ');
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});
