/**
 * Issue 16 item 13: a Sandbox status error and a 403 Status message put ESC and BEL into
 * `terraform plan -no-color` output, and two 2 MiB URLs made 4.2 MB of plan output. Whatever a
 * server says reaches stdout and stderr printable and bounded, through every way a handler prints.
 */
import * as z from 'zod/mini';
import { applyBatch } from '../../../../src/core/batch-apply';
import { systemClock } from '../../../../src/core/clock';
import { HandlerError } from '../../../../src/core/errors';
import { runHandler } from '../../../../src/core/handler-cli';
import { defineKind, type HandlerDomain } from '../../../../src/core/kind';
import { MAX_TEXT_BYTES } from '../../../../src/core/printable';
import { destroyEnv } from '../../../support/run-handler';

/** An OSC title change ended by BEL, and a colour: what a hostile or careless server sends. */
const HOSTILE = '\u001b]0;owned\u0007\u001b[31mdenied\u001b[0m';
const BIG = `https://git.example/${'x'.repeat(2 * 1024 * 1024)}`;
/** C0 and C1 controls and DEL, which a terminal acts on. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A domain whose server quotes hostile text in every place a handler prints from. */
const hostileDomain = () => {
  const repo = defineKind({
    spec: z.object({ id: z.string() }),
    identity: z.object({ id: z.string() }),
    fetch: async () => undefined,
    read: (spec) => {
      if (spec.id === 'unreadable') throw new HandlerError('Kubernetes API error', `403 Forbidden: ${HOSTILE}`);
      return {
        inSync: false,
        summary: `status error: ${HOSTILE}; url is ${BIG}`,
        diff: { url: { live: BIG, want: HOSTILE } },
      };
    },
    apply: async (_session, spec, { log }) => {
      log(`task log: ${HOSTILE}`);
      if (spec.id === 'fails') throw new HandlerError('Apply failed', `the server said ${HOSTILE}\n${BIG}`);
    },
    destroy: async () => {
      throw new Error(`403 ${HOSTILE}`);
    },
  });
  return {
    target: z.object({ server: z.string() }),
    describe: (target) => `cluster ${target.server}`,
    connect: async (target) => {
      if (target.server === 'refuses') throw new HandlerError('Kubernetes API error', `403 Status: ${HOSTILE}`);
      return undefined;
    },
    close: async () => undefined,
    kinds: { repo: async () => repo },
  } satisfies HandlerDomain<undefined, { server: string }>;
};

const run = async (argv: string[], stdin: string, env: NodeJS.ProcessEnv = {}) => {
  const out: string[] = [];
  const log: string[] = [];
  const io = { stdin: async () => stdin, env, out: (s: string) => out.push(s), log: (l: string) => log.push(l) };
  const code = await runHandler(hostileDomain(), argv, io);
  return { code, out: out.join('\n'), log };
};

const query = (server: string, ids: readonly string[]) =>
  JSON.stringify({
    '.target': JSON.stringify({ server }),
    ...Object.fromEntries(ids.map((id) => [id, JSON.stringify({ kind: 'repo', spec: { id } })])),
  });

/** Every line printable and within the cap, plus `slack` for a prefix of ours (`- <name>: `). */
const expectSafe = (lines: readonly string[], slack = 0) => {
  for (const line of lines) {
    expect(line).not.toMatch(CONTROL);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_TEXT_BYTES + slack);
  }
};

describe('server text in what a handler prints', () => {
  test('the batch read result carries summaries and diffs printable and at most 2 KiB each', async () => {
    const { code, out } = await run(['batch', 'read'], query('lab', ['a', 'b', 'unreadable']));
    expect(code).toBe(0);
    expect(out.length).toBeLessThan(16 * 1024);
    const result = JSON.parse(out) as Record<string, string>;
    expectSafe([result['a.summary'], result['a.diff'], result['unreadable.summary']].map(String));
    expect(result['a.summary']).toContain('status error: \\x1b]0;owned\\x07\\x1b[31mdenied\\x1b[0m; url is https://');
    expect(result['a.summary']).toMatch(/… \(cut\)$/);
    expect(result['unreadable.summary']).toMatch(/^cannot be read: Kubernetes API error: 403 Forbidden: \\x1b\]0;/);
    expect(JSON.parse(result['a.diff'] ?? '')).toHaveProperty('url.live', expect.stringMatching(/… \(cut\)$/));
    const summary = String(result['.summary']).split('\n');
    expect(summary[0]).toBe('3 of 3 objects are not in sync:');
    expectSafe(summary, '- unreadable: '.length);
  });

  test('a one-object read prints its reading printable and bounded', async () => {
    const { code, out } = await run(['repo', 'read'], JSON.stringify({ target: { server: 'lab' }, spec: { id: 'a' } }));
    expect(code).toBe(0);
    const reading = JSON.parse(out) as Record<string, string>;
    expectSafe([String(reading.summary), String(reading.diff)]);
  });

  test('a target that refuses fails the read in one printable line', async () => {
    const { code, log } = await run(['batch', 'read'], query('refuses', ['a']));
    expect(code).toBe(1);
    expect(log).toEqual(['batch read: Kubernetes API error: 403 Status: \\x1b]0;owned\\x07\\x1b[31mdenied\\x1b[0m']);
  });

  test('the batch apply prints the log lines of kinds and each failure printable and bounded', async () => {
    const env = {
      HOMELAB_TARGET: JSON.stringify({ server: 'lab' }),
      HOMELAB_DRIFTED: 'ok,fails',
      HOMELAB_OBJECT_0: JSON.stringify({ kind: 'repo', spec: { id: 'ok' } }),
      HOMELAB_OBJECT_1: JSON.stringify({ kind: 'repo', spec: { id: 'fails' } }),
    };
    const { code, log } = await run(['batch', 'apply'], '', env);
    expect(code).toBe(1);
    expectSafe(log);
    expect(log[0]).toBe('ok: task log: \\x1b]0;owned\\x07\\x1b[31mdenied\\x1b[0m');
    expect(log).toContainEqual(
      expect.stringMatching(/^fails: not applied: Apply failed: the server said \\x1b.*\(cut\)$/),
    );
  });

  test('applyBatch makes a failure line printable even under a log that does not', async () => {
    const lines: string[] = [];
    const env = {
      HOMELAB_TARGET: JSON.stringify({ server: 'lab' }),
      HOMELAB_DRIFTED: 'fails',
      HOMELAB_OBJECT_0: JSON.stringify({ kind: 'repo', spec: { id: 'fails' } }),
    };
    const context = { env: {}, log: (line: string) => lines.push(line), clock: systemClock };
    await expect(applyBatch(hostileDomain(), env, context)).rejects.toThrow(/1 of 1 objects/);
    expect(lines.find((line) => line.startsWith('fails: not applied:'))).not.toMatch(CONTROL);
  });

  test("a destroy's plain Error from the server ends in one printable line", async () => {
    const env = destroyEnv({ server: 'lab' }, { id: 'a' });
    const { code, log } = await run(['repo', 'destroy'], '', env);
    expect(code).toBe(1);
    expect(log).toEqual(['repo destroy: 403 \\x1b]0;owned\\x07\\x1b[31mdenied\\x1b[0m']);
  });
});
