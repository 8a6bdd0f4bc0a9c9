/**
 * A target's teardown (`batch teardown`): in a destroy of the whole state, the destroy hook of the target's batch apply
 * (constructs/core/teardown.ts), which Terraform destroys before every lifecycle it lists, removes all of their
 * objects in one run and leaves each one's outcome where that object's own destroy hook finds it (destroy-hook.sh):
 * under the Terraform run, by the object's lifecycle name, opened by the exact request the hook would hand its
 * leader. Each object's destroy stays in the plan and fails alone (its hook prints the outcome and exits with its
 * code), while the work is one run where it was one per Terraform slot: 200 units took 23 runs of about 0.6 s
 * (issue 30, 13.9x a bare destroy).
 * It acts only when whole-destroy.ts proves every resource goes, and never fails the destroy itself: whatever it
 * cannot do, each object's hook does as before, finding no outcome.
 */
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { sha256Hex } from '../canonical';
import type { HandlerDomain, KindContext, Log } from '../kind';
import { parseAs, parseJson } from '../parse';
import { ENV, OBJECT_FIELDS, TEARDOWN_FIELDS_PREFIX, TEARDOWN_PREFIX } from '../protocol';
import { REQUEST_FIELDS, replyText } from './fifo-protocol';
import { destroyFields, fieldsIn, targetRuns, withoutRequestFields } from './hook-lead';
import type { DestroyOutcome } from './relay';
import { relayDirectory, sharedDestroy } from './run';
import { destroysWholeState, runArgv, runKey, runsOver, type TerraformRun, terraformRun } from './whole-destroy';

/** A domain without a batch destroy gets this many of its objects' destroys at once, as Terraform's slots gave. */
const AT_ONCE = 10;

const part = z.record(z.string(), z.object({ input: z.string(), fields: z.record(z.string(), z.string()) }));

/** One object of a teardown: its lifecycle's name and the request its hook would make. */
export interface TeardownObject {
  readonly name: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** What the variables list: the objects of each part whose inputs the state holds as the code does, and the rest. */
export interface Listed {
  readonly objects: TeardownObject[];
  /** The parts whose digest differs (code changed since the last apply, or an earlier version's state). */
  readonly skipped: number;
}

/** `jsonencode` of a string as Terraform writes it: Go's HTML-safe escapes (measured, terraform console 1.11.4). */
export const terraformJson = (text: string): string =>
  JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The objects the variables list, each with its hook's request fields; a field no hook sets is refused. */
export const teardownObjects = (env: NodeJS.ProcessEnv): Listed => {
  const shared = fieldsIn(env, [ENV.stack, ENV.target, ENV.targetLabel]);
  const objects: TeardownObject[] = [];
  let skipped = 0;
  for (let index = 0; env[`${TEARDOWN_FIELDS_PREFIX}${index}`] !== undefined; index += 1) {
    const name = `${TEARDOWN_FIELDS_PREFIX}${index}`;
    const entries = Object.entries(parseAs(part, parseJson(env[name], name), name));
    if (sha256Hex(entries.map(([, { input }]) => input).join('\n')) !== env[`${TEARDOWN_PREFIX}${index}`]) {
      skipped += 1;
      continue;
    }
    for (const [object, { input, fields }] of entries) {
      const unknown = Object.keys(fields).find((field) => !OBJECT_FIELDS.includes(field));
      if (unknown !== undefined) throw new Error(`${object} sets ${unknown}, which no destroy hook sets`);
      objects.push({ name: object, fields: { ...fields, ...shared, [ENV.lifecycle]: terraformJson(input) } });
    }
  }
  return { objects, skipped };
};

/** A lifecycle name the hook may take as a file name (destroy-hook.sh checks the same). */
const OUTCOME_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * An object's outcome as its hook reads it (destroy-hook.sh `taken`): the request it answers, a `q<NAME>=<value>` line
 * a set field in the request's order, then the leader's reply lines. The hook compares each with its own fields.
 */
export const outcomeText = (fields: Readonly<Record<string, string>>, outcome: DestroyOutcome): string =>
  REQUEST_FIELDS.flatMap((name) => (fields[name] === undefined ? [] : [`q${name}=${fields[name]}\n`])).join('') +
  replyText(outcome);

/** What the teardown may ask of the machine: the run it is in, and that run's arguments. */
export interface TeardownPorts {
  readonly run: () => TerraformRun | undefined;
  readonly argv: (run: TerraformRun) => string[] | undefined;
}

const systemPorts: TeardownPorts = { run: () => terraformRun(process.ppid), argv: (run) => runArgv(run) };

/** Runs a teardown; always 0: an object it could not remove is its own hook's to remove, or to fail on. */
export const teardown = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  context: KindContext,
  log: Log,
  ports: TeardownPorts = systemPorts,
): Promise<number> => {
  const label = context.env[ENV.targetLabel] ?? 'its target';
  const dir = relayDirectory(context.env);
  const run = ports.run();
  const argv = run === undefined ? undefined : ports.argv(run);
  if (dir === undefined || run === undefined || argv === undefined || !destroysWholeState(argv, context.env)) {
    log(`teardown of ${label}: not a destroy of the whole state; each object's destroy removes it`);
    return 0;
  }
  let done: string | undefined;
  try {
    const { objects: listed, skipped } = teardownObjects(context.env);
    // Made at the first outcome: a teardown stopped before it leaves nothing behind.
    const outcomes = await destroyAll(domain, context, listed, (object, outcome) => {
      if (!OUTCOME_NAME.test(object.name)) return; // its hook finds none, and destroys it again: idempotent
      done ??= outcomesFolder(dir, run);
      writeFileSync(join(done, `.${object.name}`), outcomeText(object.fields, outcome), { mode: 0o600 });
      renameSync(join(done, `.${object.name}`), join(done, object.name));
    });
    const failed = outcomes.filter(({ code }) => code !== 0).length;
    const left = skipped === 0 ? '' : `; ${skipped} part(s) whose code differs from the state left to their hooks`;
    log(
      `teardown of ${label}: ${listed.length} object(s) in one run, ${failed} failed${left}; ` +
        "each object's destroy says its own outcome",
    );
  } catch (error) {
    log(`teardown of ${label} stopped: ${String(error)}; each object's destroy removes what it left`);
  }
  // Terraform gone while it worked (killed): no hook will take the outcomes, and the next plan reads the target.
  if (done !== undefined && ports.argv(run) === undefined) rmSync(done, { recursive: true, force: true });
  return 0;
};

/** Every object's destroy, in runs shared per target: all at once where the domain destroys a batch. */
const destroyAll = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  context: KindContext,
  listed: readonly TeardownObject[],
  record: (object: TeardownObject, outcome: DestroyOutcome) => void,
): Promise<DestroyOutcome[]> => {
  const { runOf, close } = targetRuns((target) => sharedDestroy(domain, context, target));
  const base = withoutRequestFields(context.env);
  const one = async (object: TeardownObject): Promise<DestroyOutcome> => {
    const kind = object.fields[ENV.kind];
    const outcome =
      kind === undefined || !Object.hasOwn(domain.kinds, kind)
        ? { code: 1, lines: [`${String(kind)} destroy: not a kind of this bundle`] }
        : await destroyFields(kind, { ...base, ...object.fields }, runOf);
    record(object, outcome);
    return outcome;
  };
  try {
    const size = domain.destroyAll === undefined ? AT_ONCE : Math.max(listed.length, 1);
    const outcomes: DestroyOutcome[] = [];
    for (let at = 0; at < listed.length; at += size) {
      outcomes.push(...(await Promise.all(listed.slice(at, at + size).map(one))));
    }
    return outcomes;
  } finally {
    await close();
  }
};

/** `done.<run>` in the relay folder, this user's alone; the folders of runs that are over go first. */
const outcomesFolder = (dir: string, run: TerraformRun): string => {
  for (const name of runsOver(readdirSync(dir))) rmSync(join(dir, name), { recursive: true, force: true });
  const done = join(dir, `done.${runKey(run)}`);
  mkdirSync(done, { recursive: true, mode: 0o700 });
  const own = lstatSync(done);
  if (!own.isDirectory() || own.uid !== process.getuid?.() || (own.mode & 0o077) !== 0) {
    throw new Error(`${done} is not this user's alone`);
  }
  return done;
};
