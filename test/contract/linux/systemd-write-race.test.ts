/**
 * A unit file or drop-in edited by hand in the instant between the batch apply's own read of the host and its write,
 * on real systemd 252: the write replaced the hand's file, kept it for undo as if the apply had read it, and no apply
 * said so. The edit is made at the port boundary, as the write request leaves for the host (no sleep): each write
 * step now names the digest of the file it expects to replace, and the helper fails it when the file is another,
 * saying so by the file's size, never its digest (a hand-edited file may hold a secret).
 */
import { sha256Hex } from '../../../src/core/canonical';
import { linuxDomain } from '../../../handlers/linux/domain';
import { connectSsh } from '../../../src/linux/ssh';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, KEY_ENV, unitSpec, useSystemdHost, variantDropIn } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const DIR = '/etc/systemd/system';
const STATE = '/var/lib/cdktf-homelab';

const service = (v: string) =>
  `[Unit]\nDescription=write race\n[Service]\nEnvironment=V=${v}\nExecStart=/bin/sleep infinity\n` +
  '[Install]\nWantedBy=multi-user.target\n';

/** The Linux domain whose first write request (a write step among its lines) runs `hand` on the host just before. */
const handBeforeWrite = (hand: string) => {
  let done = false;
  return linuxDomain(async (target, env, clock) => {
    const remote = await connectSsh(target, env, clock);
    return {
      run: async (command, stdin, effect) => {
        if (!done && stdin !== undefined && /^write-(unit|drop-in) /m.test(stdin)) {
          done = true;
          expect(await host().exec(hand)).toMatchObject({ code: 0 });
        }
        return remote.run(command, stdin, effect);
      },
      close: () => remote.close(),
    };
  });
};

const env = () => ({ [KEY_ENV]: host().privateKey });
const applyWith = (hand: string, objects: Record<string, ApplyEntry>) =>
  invokeBatchApply(handBeforeWrite(hand), hostTarget(host()), objects, env());
const plan = (objects: Record<string, ApplyEntry>) => invokeBatch(linuxDomain(), hostTarget(host()), objects, env());
const made = async (spec: ReturnType<typeof unitSpec>) => expect((await unit.run('apply', spec)).code).toBe(0);
const sh = async (command: string) => (await host().exec(command)).stdout;
const state = (name: string) => sh(`systemctl show -p ActiveState,InvocationID --value -- ${name}`);
/** No 8-hex window of the sha256 of `text` in `output`: a hand-edited file may hold a secret. */
const expectNoDigestOf = (text: string, output: string) => {
  const digest = sha256Hex(text);
  for (let at = 0; at + 8 <= digest.length; at += 1) expect(output).not.toContain(digest.slice(at, at + 8));
};
/** What the apply left of its own on the host for `path`: its intent and the copy it kept. */
const leftovers = (path: string) => sh(`ls -d ${STATE}/intents${path} ${STATE}/kept${path} 2>/dev/null; true`);

test('a unit file edited by hand as the write leaves stays so: its unit alone fails, naming both', async () => {
  await made(unitSpec('wr-a.service', service('a')));
  const before = await state('wr-a.service');
  const hand = service('hand');
  const objects = {
    a: { kind: 'systemd-unit', spec: unitSpec('wr-a.service', service('a2')) },
    b: { kind: 'systemd-unit', spec: unitSpec('wr-b.service', service('b')) },
  };
  const applied = await applyWith(`printf '%s' '${hand}' > ${DIR}/wr-a.service`, objects);
  expect(await sh(`cat ${DIR}/wr-a.service`)).toBe(hand);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    `${DIR}/wr-a.service not written: it changed after this apply read it (a file when read, now ${hand.length} bytes)`,
  );
  expectNoDigestOf(hand, applied.stderr);
  expect(applied.stderr).toMatch(/^a: not applied: wr-a\.service on \S+ was not applied: /m);
  expect(await state('wr-a.service')).toBe(before);
  expect(await state('wr-b.service')).toMatch(/^active\n/);
  expect(await leftovers('/wr-a.service')).toBe('');
  expect((await plan(objects)).result?.['a.summary']).toMatch(/differs: file is /);
});

test('a unit file made by hand where the apply read none is left, and the new unit is not applied', async () => {
  const hand = service('hand');
  const objects = { c: { kind: 'systemd-unit', spec: unitSpec('wr-c.service', service('c')) } };
  const applied = await applyWith(`printf '%s' '${hand}' > ${DIR}/wr-c.service`, objects);
  expect(await sh(`cat ${DIR}/wr-c.service`)).toBe(hand);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    `${DIR}/wr-c.service not written: it changed after this apply read it (absent when read, now ${hand.length} bytes)`,
  );
  expectNoDigestOf(hand, applied.stderr);
  expect(await sh('systemctl is-active wr-c.service; true')).toBe('inactive\n');
  expect(await leftovers('/wr-c.service')).toBe('');
});

test('a drop-in edited by hand as the write leaves is left as edited, and its unit is not restarted', async () => {
  await made(unitSpec('wr-d.service', service('d')));
  const path = `${DIR}/wr-d.service.d/10-v.conf`;
  const first = { v: { kind: 'systemd-drop-in', spec: variantDropIn('wr-d.service', 'a') } };
  expect(await invokeBatchApply(linuxDomain(), hostTarget(host()), first, env())).toMatchObject({ code: 0 });
  const before = await state('wr-d.service');
  const hand = '[Service]\nEnvironment=V=hand\n';
  const objects = { v: { kind: 'systemd-drop-in', spec: variantDropIn('wr-d.service', 'b') } };
  const applied = await applyWith(`printf '%s' '${hand}' > ${path}`, objects);
  expect(await sh(`cat ${path}`)).toBe(hand);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(
    `${path} not written: it changed after this apply read it (a file when read, now ${hand.length} bytes)`,
  );
  expectNoDigestOf(hand, applied.stderr);
  expect(await state('wr-d.service')).toBe(before);
  expect(await leftovers(`/drop-ins${path}`)).toBe('');
});
