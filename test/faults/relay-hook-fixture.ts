/**
 * A destroy hook process for the relay's fault tests: the real handler CLI (`main`) over a domain whose
 * target is a folder. Objects are files under `objects/`, a destroy waits the identity's `ms` then removes
 * its file, and every step goes to `events` as `<step> <id> <pid>`, so a test sees which process leads,
 * when a follower has sent its request, and whether a destroy was cut off by its session's close.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { HandlerError } from '../../src/core/errors';
import { main } from '../../src/core/handler-cli';
import { defineKind, type HandlerDomain } from '../../src/core/kind';

interface Shelf {
  readonly dir: string;
  open: boolean;
}

const event = (dir: string, step: string, id = '-') =>
  appendFileSync(join(dir, 'events'), `${step} ${id} ${process.pid}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Observation only: every write on a socket in this process is the relay's, so its callback marks the
// instant a follower's request (or a leader's answer) has left this process. Marked before the write, as
// it was until this fix, a test could kill a follower between the mark and the write: the leader never
// got the request, and "a hook killed between its request and the answer" failed (1 of 4 runs here under
// load, at test/faults/destroy-relay.test.ts:172; every run with a 300 ms pause put between mark and write).
const write = Socket.prototype.write;
Socket.prototype.write = function (this: Socket, ...args: unknown[]) {
  const dir = process.env.RELAY_FIXTURE_DIR;
  const at = args.findIndex((arg) => typeof arg === 'function');
  const callback = args[at];
  const marked = (error?: Error | null) => {
    if (dir !== undefined && !error) event(dir, 'sent');
    if (typeof callback === 'function') callback(error);
  };
  const withMark = at >= 0 ? [...args.slice(0, at), marked] : [...args, marked];
  return (write as (...a: unknown[]) => boolean).apply(this, withMark);
} as typeof write;

const widget = defineKind({
  spec: z.object({ id: z.string() }),
  identity: z.object({ id: z.string(), ms: z.optional(z.number()) }),
  fetch: async () => undefined,
  read: () => ({ inSync: true, summary: 'in sync', diff: {} }),
  apply: async () => undefined,
  async destroy(shelf: Shelf, identity, context) {
    event(shelf.dir, 'start', identity.id);
    await sleep(identity.ms ?? 200);
    if (!shelf.open) {
      event(shelf.dir, 'cut', identity.id);
      throw new HandlerError('Session closed', `the session closed under ${identity.id}'s destroy`);
    }
    rmSync(join(shelf.dir, 'objects', identity.id), { force: true });
    context.log(`widget ${identity.id}: removed`);
    event(shelf.dir, 'done', identity.id);
  },
});

/** `connect` in the folder, when present: `{ failures, ms }`, the first `failures` connects fail after `ms`. */
const connect = async (dir: string): Promise<Shelf> => {
  const plan = join(dir, 'connect');
  const { failures = 0, ms = 0 } = existsSync(plan)
    ? (JSON.parse(readFileSync(plan, 'utf8')) as Record<string, number>)
    : {};
  await sleep(ms);
  const count = join(dir, 'connects');
  const made = (existsSync(count) ? Number(readFileSync(count, 'utf8')) : 0) + 1;
  writeFileSync(count, String(made));
  if (made <= failures) {
    event(dir, 'refused');
    throw new HandlerError('Shelf unreachable', `no answer from the shelf in ${dir}`);
  }
  event(dir, 'connect');
  return { dir, open: true };
};

const domain = {
  target: z.object({ dir: z.string() }),
  describe: (target) => `shelf ${target.dir}`,
  connect: (target) => connect(target.dir),
  close: async (shelf) => {
    shelf.open = false;
    event(shelf.dir, 'close');
  },
  kinds: { widget: async () => widget },
} satisfies HandlerDomain<Shelf, { dir: string }>;

main(domain);
