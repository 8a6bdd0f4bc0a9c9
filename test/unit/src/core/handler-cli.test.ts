import { HandlerError } from '../../../../src/core/errors';
import { type ObjectHandler, runHandler } from '../../../../src/core/handler-cli';

const seen: unknown[] = [];
const handler: ObjectHandler = {
  read: async (input) => {
    seen.push(input);
    return { in_sync: 'true', summary: 'ok', diff: '{}' };
  },
  apply: async (input) => {
    seen.push(input);
  },
  destroy: async () => {
    throw new HandlerError('Widget not removed', 'the server said:\nline two\n  line three', { Host: 'h1' });
  },
};
const call = async (argv: string[], stdin = '', env: NodeJS.ProcessEnv = {}) => {
  const out: string[] = [];
  const log: string[] = [];
  const code = await runHandler({ widget: async () => handler }, argv, { stdin: async () => stdin, env, out: (s) => out.push(s), log: (l) => log.push(l) });
  return { code, out, log };
};

describe('runHandler', () => {
  beforeEach(() => seen.splice(0));

  test('read takes the query on stdin and prints the result as one JSON object', async () => {
    const query = JSON.stringify({ kind: 'widget', target: '{"h":1}', spec: '{"s":2}' });
    expect(await call(['widget', 'read'], query)).toEqual({ code: 0, out: ['{"in_sync":"true","summary":"ok","diff":"{}"}'], log: [] });
    expect(seen).toEqual([{ target: { h: 1 }, object: { s: 2 } }]);
  });

  test('apply takes target and spec from the hooks\' environment', async () => {
    expect((await call(['widget', 'apply'], '', { HOMELAB_TARGET: '{"h":1}', HOMELAB_SPEC: '{"s":3}' })).code).toBe(0);
    expect(seen).toEqual([{ target: { h: 1 }, object: { s: 3 } }]);
  });

  test('a failure is one stderr line with the labelled context, and exit code 1', async () => {
    const result = await call(['widget', 'destroy'], '', { HOMELAB_TARGET: '{}', HOMELAB_IDENTITY: '{}' });
    expect(result).toEqual({ code: 1, out: [], log: ['widget destroy: Widget not removed: the server said: line two line three; Host: h1'] });
  });

  test('an unknown kind or verb prints the usage and exits 2', async () => {
    expect(await call(['gadget', 'read'])).toEqual({ code: 2, out: [], log: ['gadget read: unknown kind or verb; usage: <widget> <read|apply|destroy>'] });
    expect((await call(['widget', 'fix'])).code).toBe(2);
  });

  test('missing input names where it was expected', async () => {
    const result = await call(['widget', 'apply']);
    expect(result.log[0]).toMatch(/Missing input: target must be a JSON object \(stdin, or HOMELAB_TARGET/);
  });
});
