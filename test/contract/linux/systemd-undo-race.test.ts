/**
 * A unit file or drop-in edited by hand after a failed batch apply wrote it and before its undo, on real systemd 252:
 * the undo put back the file the apply read (or removed the new one) over the hand's edit, and said it restored the
 * host. The edit is made at the port boundary, as the undo's request leaves for the host (no sleep): each undo step
 * now names the digest of the content its apply wrote, and the helper leaves a file that is another, saying so.
 */
import { sha256Hex } from '../../../src/core/canonical';
import { linuxDomain } from '../../../handlers/linux/domain';
import { connectSsh } from '../../../src/linux/ssh';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, KEY_ENV, unitSpec, useSystemdHost, variantDropIn } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const DIR = '/etc/systemd/system';

const service = (v: string, exec = '/bin/sleep infinity') =>
  `[Unit]\nDescription=undo race\n[Service]\nEnvironment=V=${v}\nExecStart=${exec}\n` +
  '[Install]\nWantedBy=multi-user.target\n';
/** A unit whose start fails at once, so its apply is undone. */
const failing = (name: string, v: string) => unitSpec(name, service(v, '/bin/false'), { startTimeoutSeconds: 20 });
/** What a hand writes: a secret, whose digest no message may print. */
const hand = (v: string) => service(v).replace('Environment=V=', 'Environment=TOKEN=s3cret-');

/** An undo's request: a restore or a removal among its lines (a destroy's is destroy-unit, never sent here). */
const UNDO = /^(restore|remove)-(unit|drop-in) /m;

/**
 * The Linux domain that runs `edit` on the host once, before its first undo request leaves; every undo request
 * waits for it, so undos sent side by side all find the edit made.
 */
const handBeforeUndo = (edit: string) => {
  let made: Promise<unknown> | undefined;
  return linuxDomain(async (target, env, clock) => {
    const remote = await connectSsh(target, env, clock);
    return {
      run: async (command, stdin, effect) => {
        if (stdin !== undefined && UNDO.test(stdin)) {
          made ??= host()
            .exec(edit)
            .then((result) => expect(result).toMatchObject({ code: 0 }));
          await made;
        }
        return remote.run(command, stdin, effect);
      },
      close: () => remote.close(),
    };
  });
};

const env = () => ({ [KEY_ENV]: host().privateKey });
const applyWith = (edit: string, objects: Record<string, ApplyEntry>) =>
  invokeBatchApply(handBeforeUndo(edit), hostTarget(host()), objects, env());
const made = async (spec: ReturnType<typeof unitSpec>) => expect((await unit.run('apply', spec)).code).toBe(0);
const sh = async (command: string) => (await host().exec(command)).stdout;
const write = (text: string, path: string) => `printf '%s' '${text}' > ${path}`;
/** No 8-hex window of the sha256 of `text` in `output`. */
const expectNoDigestOf = (text: string, output: string) => {
  const digest = sha256Hex(text);
  for (let at = 0; at + 8 <= digest.length; at += 1) expect(output).not.toContain(digest.slice(at, at + 8));
};

test('a rewritten unit file edited by hand before its undo is left as edited; a new unit beside it goes', async () => {
  await made(unitSpec('ur-a.service', service('a')));
  const objects = {
    a: { kind: 'systemd-unit', spec: failing('ur-a.service', 'a2') },
    b: { kind: 'systemd-unit', spec: failing('ur-b.service', 'b') },
  };
  const applied = await applyWith(write(hand('a'), `${DIR}/ur-a.service`), objects);
  expect(await sh(`cat ${DIR}/ur-a.service`)).toBe(hand('a'));
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    new RegExp(
      /^a: not applied: ur-a\.service on \S+ was not applied: .*; /.source +
        /\/etc\/systemd\/system\/ur-a\.service left as it is: it changed after this apply wrote it; /.source +
        /enabled it again from that file's \[Install\]; /.source +
        /the file this apply replaced is kept, root's alone, at \/var\/lib\/cdktf-homelab\/kept\/ur-a\.service /
          .source +
        /until the next apply or destroy of it; the unit is now failed\/failed$/.source,
      'm',
    ),
  );
  // The rest of its undo went on: enabled again, as before the apply, from the file left; the file it replaced kept.
  expect(await sh('systemctl is-enabled ur-a.service; true')).toBe('enabled\n');
  expect(await sh('cat /var/lib/cdktf-homelab/kept/ur-a.service')).toBe(service('a'));
  expect(await sh(`ls ${DIR}/ur-b.service 2>&1; true`)).toMatch(/No such file/);
  expect(applied.stderr).toMatch(
    /^b: not applied: .*; restored the host by removing the new unit file and its links;/m,
  );
  expectNoDigestOf(hand('a'), applied.stderr);
});

// Regression: the undo said "its links put back" while it enabled the unit again from the hand's file's [Install].
test("a rewritten unit whose file the undo leaves is enabled from that file's [Install], and says so", async () => {
  await made(unitSpec('ur-g.service', service('g')));
  const elsewhere = hand('g').replace('WantedBy=multi-user.target', 'WantedBy=graphical.target');
  const objects = { g: { kind: 'systemd-unit', spec: failing('ur-g.service', 'g2') } };
  const applied = await applyWith(write(elsewhere, `${DIR}/ur-g.service`), objects);
  expect(applied.stderr).toMatch(
    /^g: not applied: .*left as it is: .*; enabled it again from that file's \[Install\]; /m,
  );
  expect(await sh(`ls ${DIR}/*.wants/ur-g.service`)).toBe(`${DIR}/graphical.target.wants/ur-g.service\n`);
});

test('a new unit file edited by hand before its undo stays; a rewritten unit beside it is restored', async () => {
  await made(unitSpec('ur-d.service', service('d')));
  const objects = {
    c: { kind: 'systemd-unit', spec: failing('ur-c.service', 'c') },
    d: { kind: 'systemd-unit', spec: failing('ur-d.service', 'd2') },
  };
  const applied = await applyWith(write(hand('c'), `${DIR}/ur-c.service`), objects);
  expect(await sh(`cat ${DIR}/ur-c.service`)).toBe(hand('c'));
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    /^c: not applied: .*; \/etc\/systemd\/system\/ur-c\.service left as it is: it changed after this apply wrote it;/m,
  );
  expect(await sh(`cat ${DIR}/ur-d.service`)).toBe(service('d'));
  expect(applied.stderr).toMatch(/^d: not applied: .*; restored the previous unit file and its links; /m);
  expectNoDigestOf(hand('c'), applied.stderr);
  // Its intent stays, so the next plan names it this stack's, interrupted, and the hand's file as drift.
  const planned = (await invokeBatch(linuxDomain(), hostTarget(host()), objects, env())).result ?? {};
  expect(planned['c.summary']).toMatch(
    /restart pending since an interrupted apply .*differs: file is "not the declared content \(\d+ bytes\)"/,
  );
  expectNoDigestOf(hand('c'), JSON.stringify(planned));
});

test('a new drop-in edited by hand before its undo stays as edited', async () => {
  await made(unitSpec('ur-e.service', service('e')));
  const path = `${DIR}/ur-e.service.d/10-v.conf`;
  const breaks = { ...variantDropIn('ur-e.service', 'x'), content: '[Service]\nExecStart=\nExecStart=/bin/false\n' };
  const edited = '[Service]\nEnvironment=TOKEN=s3cret-e\n';
  const applied = await applyWith(write(edited, path), { v: { kind: 'systemd-drop-in', spec: breaks } });
  expect(await sh(`cat ${path}`)).toBe(edited);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    /^v: not applied: .*; \S+10-v\.conf left as it is: it changed after this apply wrote it, and ur-e\.service not /m,
  );
  // Not restarted with a file this apply did not write: still failed from the apply's own restart.
  expect(await sh('systemctl is-active ur-e.service; true')).toBe('failed\n');
  expectNoDigestOf(edited, applied.stderr);
});
