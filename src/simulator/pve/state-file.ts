// The fake PVE's state kept in a file for `cdktf-homelab fake-pve --state DIR`, so a user's simulator
// keeps its metric servers (tokens included, as PVE keeps them in /etc/pve/priv) and each member's
// interfaces files across restarts, instead of coming back empty under a stack that thinks they exist.
// Written to a temporary file and renamed, so a fake killed mid-write leaves the previous state whole.
// The folder holds tokens and a TLS key: it must be the user's own and closed to others (issue 27: the fake
// served another user's key from a folder that user had made, and wrote its certificate 0666 under umask 000).
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { isRecord } from '../../core/records';
import { messageOf } from './narrow';
import type { PveSimulator } from './server';

export interface SavedState {
  readonly metricServers: Record<string, Record<string, unknown>>;
  readonly metricTokens: Record<string, string>;
  /** Per member: /etc/network/interfaces and interfaces.new (absent when nothing is staged). */
  readonly network: Record<string, { running: string; staged?: string }>;
}

/** A part of a state file of another shape than it must have, named by its path (`network.n2.running`). */
class ShapeError extends Error {}

type Reader<T> = (value: unknown, at: string) => T;

const object: Reader<Readonly<Record<string, unknown>>> = (value, at) => {
  if (!isRecord(value)) throw new ShapeError(`${at}: not an object`);
  return value;
};

const text: Reader<string> = (value, at) => {
  if (typeof value !== 'string') throw new ShapeError(`${at}: not a string`);
  return value;
};

/** An object whose every value reads as `entry`; a missing part is an empty one. */
const tableOf =
  <T>(entry: Reader<T>): Reader<Record<string, T>> =>
  (value, at) =>
    value === undefined
      ? {}
      : Object.fromEntries(Object.entries(object(value, at)).map(([key, item]) => [key, entry(item, `${at}.${key}`)]));

const nodeFiles: Reader<{ running: string; staged?: string }> = (value, at) => {
  const { running, staged } = object(value, at);
  return staged === undefined
    ? { running: text(running, `${at}.running`) }
    : { running: text(running, `${at}.running`), staged: text(staged, `${at}.staged`) };
};

/** The saved state in `fileText`, or why it is none: not JSON, or the first part of another shape. */
const parseState = (fileText: string): SavedState | string => {
  try {
    const saved = object(JSON.parse(fileText), 'the file');
    return {
      metricServers: tableOf(object)(saved.metricServers, 'metricServers'),
      metricTokens: tableOf(text)(saved.metricTokens, 'metricTokens'),
      network: tableOf(nodeFiles)(saved.network, 'network'),
    };
  } catch (err) {
    return messageOf(err);
  }
};

/**
 * Makes `dir` (0700) or checks the one there: a directory, not a link, owned by this user, that no one
 * else may open. Throws saying what to do otherwise.
 */
export const privateStateDir = (dir: string): void => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  const problem = !stat.isDirectory()
    ? 'is not a directory (a link?)'
    : uid !== undefined && stat.uid !== uid
      ? `belongs to uid ${stat.uid}, not you (uid ${uid})`
      : (stat.mode & 0o077) !== 0
        ? `may be opened by others (mode ${(stat.mode & 0o777).toString(8)})`
        : undefined;
  if (problem !== undefined) {
    throw new Error(`--state ${dir} ${problem}: it keeps tokens and a TLS key; use a folder of yours with mode 700`);
  }
};

/** Makes `files` of `dir` 0600, whatever the umask they were written under. */
export const keepPrivate = (dir: string, files: readonly string[]): void => {
  for (const file of files) chmodSync(join(dir, file), 0o600);
};

/** What the fake holds now, for the members in `nodes`. */
export const stateOf = (fake: PveSimulator, nodes: readonly string[]): SavedState => ({
  metricServers: fake.metricServers(),
  metricTokens: fake.metricTokens(),
  network: Object.fromEntries(nodes.map((node) => [node, fake.interfacesFiles(node)])),
});

/** Puts a saved state back into a fresh fake; a missing file is an empty state, a malformed one an error. */
export const restoreState = (fake: PveSimulator, file: string): void => {
  if (!existsSync(file)) return;
  const saved = parseState(readFileSync(file, 'utf8'));
  if (typeof saved === 'string') {
    throw new Error(`${file} is not a saved fake PVE state (${saved}); move it away to start empty`);
  }
  for (const [id, section] of Object.entries(saved.metricServers)) {
    const token = saved.metricTokens[id];
    fake.setMetricServer(id, token === undefined ? section : { ...section, token });
  }
  for (const [node, files] of Object.entries(saved.network)) fake.setInterfacesFiles(node, files);
};

/** Writes `state` to `file` (mode 0600: it holds the metric servers' tokens) unless it is what was written last. */
export const stateWriter = (file: string): ((state: SavedState) => void) => {
  let last = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return (state) => {
    const text = `${JSON.stringify(state, null, 2)}\n`;
    if (text === last) return;
    writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
    chmodSync(`${file}.tmp`, 0o600);
    renameSync(`${file}.tmp`, file);
    last = text;
  };
};
