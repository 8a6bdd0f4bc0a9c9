/**
 * Whether a file that decides what a handler runs or trusts (a kubeconfig, an exec plugin's command, a CA) is the
 * user's alone: owned by them or root, writable by nobody else, in directories nobody else can swap it out of. Without
 * it a kubeconfig another user could write ran that user's exec plugin as the person running Terraform.
 */
import * as path from 'node:path';
import { HandlerError } from '../core/errors';

/** What the rule needs of one path, following links. */
export interface PathFacts {
  readonly kind: 'file' | 'dir' | 'other';
  readonly uid: number;
  /** Permission bits with the sticky bit (`mode & 0o7777`). */
  readonly mode: number;
}

/** The file-system port of the rule; injectable so tests need no real owners. */
export interface TrustIo {
  /** The running user's uid; undefined where there are none (Windows): nothing is checked. */
  readonly uid: number | undefined;
  /** The path's facts, or undefined when nothing is there. */
  inspect(file: string): PathFacts | undefined;
  /** The path with every link resolved. */
  realPath(file: string): string;
}

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;
const octal = (mode: number) => `mode ${mode.toString(8).padStart(4, '0')}`;

/** Why `facts` let someone other than `uid` and root change the path, or undefined. `create`: a missing entry could
 * be made in this directory, which a sticky bit does not prevent. */
export const trustProblem = (facts: PathFacts, uid: number, create = false): string | undefined => {
  if (facts.uid !== uid && facts.uid !== 0) return `is owned by uid ${facts.uid}, not by you (uid ${uid}) or root`;
  if ((facts.mode & GROUP_OR_OTHER_WRITE) === 0) return undefined;
  if (facts.kind === 'dir' && !create && (facts.mode & STICKY) !== 0) return undefined;
  return `is writable by group or others (${octal(facts.mode)})`;
};

const fixFor = (problem: string, file: string, uid: number) =>
  problem.startsWith('is owned') ? `check it, then chown ${uid} ${file}` : `run chmod go-w ${file}`;

const RISK = 'so another user could change what it makes this handler run or trust as you';

const untrusted = (detail: string) => new HandlerError('Kubeconfig not trusted', detail);

/** Every directory from `dir` up to the root, by the rule for directories that hold an existing file. */
const requireDirs = (io: TrustIo, uid: number, dir: string, named: string): void => {
  for (let at = dir; ; at = path.dirname(at)) {
    const facts = io.inspect(at);
    const problem = facts === undefined ? undefined : trustProblem(facts, uid);
    if (problem !== undefined) {
      throw untrusted(`${named} is in directory ${at}, which ${problem}, ${RISK}; ${fixFor(problem, at, uid)}`);
    }
    if (path.dirname(at) === at) return;
  }
};

/** Throws naming the file and the fix unless `file`, the file its links lead to and their directories are safe;
 * `what` names it in the message (`kubeconfig`, `exec command of user "ci"`). */
export const requireTrusted = (io: TrustIo, file: string, what: string): void => {
  const uid = io.uid;
  if (uid === undefined) return;
  const absolute = path.resolve(file);
  const facts = io.inspect(absolute);
  if (facts === undefined) return requireUncreatable(io, absolute, what);
  const named = `${what} ${absolute}`;
  const problem = trustProblem(facts, uid);
  if (problem !== undefined) throw untrusted(`${named} ${problem}, ${RISK}; ${fixFor(problem, absolute, uid)}`);
  requireDirs(io, uid, path.dirname(absolute), named);
  const real = io.realPath(absolute);
  if (real !== absolute) requireDirs(io, uid, path.dirname(real), `${named} (a link to ${real})`);
};

/** For a path with nothing there yet: nobody else may create it, so its nearest directory must be writable by its
 * owner alone (a sticky bit does not stop a create). */
export const requireUncreatable = (io: TrustIo, file: string, what: string): void => {
  const uid = io.uid;
  if (uid === undefined) return;
  const absolute = path.resolve(file);
  let at = path.dirname(absolute);
  let facts = io.inspect(at);
  while (facts === undefined && path.dirname(at) !== at) facts = io.inspect((at = path.dirname(at)));
  const problem = facts === undefined ? undefined : trustProblem(facts, uid, true);
  const named = `${what} ${absolute}`;
  if (problem !== undefined) {
    throw untrusted(
      `${named} does not exist, and directory ${at} ${problem}, so another user could create it and choose what ` +
        `this handler runs or trusts as you; ${fixFor(problem, at, uid)}, or use a path only you can write`,
    );
  }
  requireDirs(io, uid, path.dirname(at), named);
};

/**
 * An exec plugin's command: a path is checked as a file; a bare name is checked where PATH finds it, and every PATH
 * directory searched before that one must not let another user put a program of that name there first.
 */
export const requireTrustedCommand = (io: TrustIo, command: string, searchPath: string, what: string): void => {
  if (io.uid === undefined) return;
  if (command.includes('/')) return requireTrusted(io, command, what);
  for (const dir of searchPath.split(path.delimiter)) {
    const candidate = path.resolve(dir, command);
    requireTrusted(io, candidate, `${what} (looked up in PATH)`);
    const facts = io.inspect(candidate);
    if (facts?.kind === 'file' && (facts.mode & 0o111) !== 0) return;
  }
};
