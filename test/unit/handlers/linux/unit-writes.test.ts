/**
 * A host's batch apply writes its files in as few root helper requests as it can (issue 30), against a fake
 * systemd that runs each request's steps in order until one fails: one request for a few units, chunks of 50
 * for many, and a write that fails (a file changed by hand since the read among the causes) fails its object alone,
 * never sent again, while the others converge.
 */
import { linuxDomain } from '../../../../handlers/linux/domain';
import type { Remote } from '../../../../src/linux/ssh';
import { invokeBatchApply } from '../../../support/run-handler';
import { fakeSystemd, TARGET } from './fake-systemd';
import { DIR, unit } from './unit-specs';

/** The fake host, and the root helper requests sent to it: each one's write steps, by unit name. */
const observed = () => {
  const host = fakeSystemd();
  const requests: string[][] = [];
  let answer: ((stdin: string) => { code: number; stdout: string; stderr: string } | undefined) | undefined;
  const remote: Remote = {
    run: async (command, stdin, effect) => {
      const writes = [...(stdin ?? '').matchAll(/^write-unit \S+ (\S+) /gm)].map((match) => match[1] as string);
      if (writes.length > 0) requests.push(writes);
      const forced = writes.length > 0 ? answer?.(stdin ?? '') : undefined;
      return forced ?? host.remote.run(command, stdin, effect);
    },
    close: () => undefined,
  };
  const apply = (count: number) =>
    invokeBatchApply(
      linuxDomain(async () => remote),
      TARGET,
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`u${i}`, { kind: 'systemd-unit', spec: unit(`u${i}.service`) }]),
      ),
    );
  return { host, requests, apply, answer: (next: typeof answer) => void (answer = next) };
};
const names = (...indices: number[]) => indices.map((i) => `u${i}.service`);
const notApplied = (stderr: string) => stderr.split('\n').filter((line) => / not applied: /.test(line));

describe("a batch apply's writes", () => {
  test('three units go in one request, each logged as written', async () => {
    const { host, requests, apply } = observed();
    const run = await apply(3);
    expect(run).toMatchObject({ code: 0 });
    expect(requests).toEqual([names(0, 1, 2)]);
    for (const i of [0, 1, 2]) expect(run.stderr).toContain(`u${i}: wrote ${DIR}/u${i}.service\n`);
    expect(host.state('u2.service')).toBe('active/running');
  });

  test('120 units go in requests of at most 50 files', async () => {
    const { requests, apply } = observed();
    expect(await apply(120)).toMatchObject({ code: 0 });
    expect(requests.map((request) => request.length).sort()).toEqual([20, 50, 50]);
  });

  test('one write that fails fails its unit alone, never sent again; those after it go again together', async () => {
    const { host, requests, apply } = observed();
    host.refuseWrites(`${DIR}/u1.service`);
    const run = await apply(4);
    expect(run.code).toBe(1);
    expect(requests).toEqual([names(0, 1, 2, 3), names(2, 3)]);
    expect(notApplied(run.stderr)).toEqual([
      expect.stringMatching(/^u1: not applied: u1.service on h:22 was not applied: .*Read-only file system/),
    ]);
    expect(host.files.has(`${DIR}/u1.service`)).toBe(false);
    for (const name of names(0, 2, 3)) expect(host.state(name)).toBe('active/running');
  });

  // Regression: a file made or edited by hand after the apply's read was replaced, and no apply said so.
  test('a file made by hand after the read fails its unit alone, left as made; those after it go again', async () => {
    const { host, requests, apply, answer } = observed();
    const [path, hand] = [`${DIR}/u1.service`, '[Unit]\nDescription=hand\n'];
    answer(() => {
      if (!host.files.has(path)) host.files.set(path, hand);
      return undefined;
    });
    const run = await apply(4);
    expect(run.code).toBe(1);
    expect(requests).toEqual([names(0, 1, 2, 3), names(2, 3)]);
    expect(notApplied(run.stderr)).toEqual([
      expect.stringContaining(
        `${path} not written: it changed after this apply read it (absent when read, now ${hand.length} bytes)`,
      ),
    ]);
    expect(host.files.get(path)).toBe(hand);
    for (const name of names(0, 2, 3)) expect(host.state(name)).toBe('active/running');
  });

  test('a request the helper refused ran nothing: each write then goes alone, with its own answer', async () => {
    const { host, requests, apply, answer } = observed();
    answer((stdin) =>
      stdin.includes('\nwrite-unit ') && stdin.includes(' u1.service ') && stdin.includes(' u2.service ')
        ? { code: 64, stdout: '', stderr: 'cdktf-homelab-root: step 2 (write-unit) refused: x; nothing was done\n' }
        : undefined,
    );
    expect(await apply(3)).toMatchObject({ code: 0 });
    expect(requests).toEqual([names(0, 1, 2), names(0), names(1), names(2)]);
    expect(host.state('u1.service')).toBe('active/running');
  });
});
