/**
 * A mask the apply's unmask cannot reach, on real systemd 252: a /dev/null link under /etc or /run `system.control`
 * or /run/systemd/transient, which pid1 ranks above /etc/systemd/system. Regression: the plan said "apply unmasks it
 * (unmask: true)"; the apply logged "unmasked (removed its /dev/null link)" with the link still there and failed at
 * its enable naming the mask. `systemctl unmask` (and `--runtime`) leaves such a link too, exit 0 (measured here), so
 * the plan and the apply refuse it in the same words, before any change, naming the `rm` that ends it.
 */
import { unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const exec = async (cmd: string) => (await host().exec(cmd)).stdout.trim();
const CONTENT = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const ROOTS = ['/etc/systemd/system.control', '/run/systemd/system.control', '/run/systemd/transient'];

const maskByHand = async (root: string, name: string) => {
  const link = `${root}/${name}`;
  await host().exec(`systemctl stop ${name}; mkdir -p ${root} && ln -s /dev/null ${link} && systemctl daemon-reload`);
  return link;
};

test.each(ROOTS)('systemd 252: systemctl unmask leaves a mask under %s, exit 0', async (root) => {
  const name = `mr-s${ROOTS.indexOf(root)}.service`;
  await host().exec(`printf '[Service]\\nExecStart=/bin/sleep infinity\\n' > /etc/systemd/system/${name}`);
  const link = await maskByHand(root, name);
  const unmasked = await host().exec(`systemctl unmask ${name} && systemctl unmask --runtime ${name}`);
  expect(unmasked.code).toBe(0);
  expect(await exec(`systemctl daemon-reload; readlink ${link}; systemctl show -p LoadState --value ${name}`)).toBe(
    '/dev/null\nmasked',
  );
  await host().exec(`rm -f ${link} /etc/systemd/system/${name}; systemctl daemon-reload`);
});

test.each(ROOTS)('a unit with unmask: true masked by hand under %s: the plan and the apply refuse it', async (root) => {
  const name = `mr-u${ROOTS.indexOf(root)}.service`;
  const objects = { u: { kind: 'systemd-unit', spec: unitSpec(name, CONTENT, { unmask: true }) } };
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const link = await maskByHand(root, name);
  const words =
    `the apply refuses it: ${link} masks it, which neither the apply's unmask nor systemctl unmask removes ` +
    `(measured); remove it by hand (rm ${link}) and apply again`;
  const planned = (await plan(objects)).result ?? {};
  expect(planned['u.in_sync']).toBe('false');
  expect(planned['u.summary']).toContain(`is masked (masked is true, want false; `);
  expect(planned['u.summary']).toContain(words);
  expect(planned['u.summary']).not.toContain('apply unmasks it');

  const applied = await apply(objects);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(`is masked: systemd will not start or enable it; ${words}`);
  expect(applied.stderr).not.toContain('unmasked');
  expect(await exec(`readlink ${link}; systemctl is-enabled ${name}`)).toBe(
    '/dev/null\nmasked' + (root.startsWith('/run') ? '-runtime' : ''),
  );

  await host().exec(`rm ${link} && systemctl daemon-reload`);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect((await plan(objects)).result?.['u.in_sync']).toBe('true');
});

// The control: a mask in the unit's own directory (its file replaced by the link) is the apply's to remove.
test('a unit with unmask: true masked in its own directory is unmasked and written again', async () => {
  const name = 'mr-etc.service';
  const objects = { u: { kind: 'systemd-unit', spec: unitSpec(name, CONTENT, { unmask: true }) } };
  expect(await apply(objects)).toMatchObject({ code: 0 });
  await host().exec(
    `systemctl stop ${name} && ln -sfn /dev/null /etc/systemd/system/${name} && systemctl daemon-reload`,
  );
  expect((await plan(objects)).result?.['u.summary']).toContain('apply unmasks it (unmask: true)');
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringContaining('unmasked (removed its /dev/null link)') });
  expect((await plan(objects)).result?.['u.in_sync']).toBe('true');
});
