/**
 * `npx cdktf-homelab discover` (run by src/cli/main.ts): reads what is live on the targets given and
 * writes a TypeScript stack declaring it, then prints what it declared, the variables the secrets go in
 * and what it left out. It only reads; a failure names the target and leaves no file behind.
 */
import { existsSync } from 'node:fs';
import { errorCode } from '../core/errors';
import { createFile, replaceFile } from '../core/replace-file';
import type { Discovered } from './declaration';
import { kubeDeclarations } from './kube';
import { commentText } from './literal';
import { type DiscoverOptions, parseOptions, USAGE } from './options';
import { pveDeclarations } from './pve';
import { readHost } from './read-host';
import { readKube } from './read-kube';
import { readPve } from './read-pve';
import { discoveredStack } from './stack';

const say = (line: string) => process.stderr.write(`${commentText(line)}\n`);

/** A list prop as words: `a, b` (String() of an array joins with a bare comma). */
const listed = (value: unknown): string => (Array.isArray(value) ? value.map(String).join(', ') : String(value));

/** The header's lines saying what discover reads, a target each, in the order the stack declares them. */
export const whatWasRead = (options: DiscoverOptions): string[] => {
  const read: string[] = [];
  if (options.pve !== undefined) {
    const nodes = options.nodes.length > 0 ? `, nodes ${options.nodes.join(', ')}` : '';
    read.push(`PVE cluster ${listed(options.pve.endpoints)}${nodes}`);
  }
  if (options.ssh !== undefined) {
    const globs = options.unitGlobs.length > 0 ? `, units ${options.unitGlobs.join(' ')}` : '';
    read.push(`SSH host ${String(options.ssh.host)}:${String(options.ssh.port ?? 22)}${globs}`);
  }
  if (options.kube !== undefined && options.kinds.has('kube-repo')) {
    read.push(`Kubernetes namespaces ${options.kube.namespaces.join(', ')}`);
  }
  return read;
};

/** Each target's reading, in the order the stack declares them. */
const discover = async (options: DiscoverOptions): Promise<Discovered[]> => {
  const parts: Discovered[] = [];
  if (options.pve !== undefined) {
    parts.push(
      pveDeclarations(await readPve(options, options.pve), new Set(), { includeManagement: options.includeManagement }),
    );
  }
  if (options.ssh !== undefined) parts.push(await readHost(options, options.ssh));
  if (options.kube !== undefined && options.kinds.has('kube-repo')) {
    const { props, namespaces, version } = options.kube;
    parts.push(kubeDeclarations(await readKube(props, namespaces, version), options.stackId));
  }
  return parts;
};

const existing = (out: string, cause?: unknown): Error =>
  new Error(`${out} exists; choose another --out, or pass --force to replace it`, { cause });

/**
 * Writes `out` whole or not at all, never over an existing file unless `force`: a stack edited since the last
 * run stays. A write cut short (a full disk) left half a stack, or with --force half of the edited one, while
 * the error said nothing was written (an audit, 2026-12-05).
 */
const writeOnce = (out: string, text: string, force: boolean): void => {
  try {
    if (force) replaceFile(out, text, { keepMode: true });
    else createFile(out, text, 0o666);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    throw existing(out, error);
  }
};

/** `cdktf-homelab discover ARGS`: the exit code; a failure throws, and nothing was written. */
export const runDiscover = async (args: readonly string[]): Promise<number> => {
  if (args.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const parsed = parseOptions(args);
  if ('problems' in parsed) {
    for (const problem of parsed.problems) say(`discover: ${problem}`);
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const { options } = parsed;
  // Before any server is asked: an edited stack is never the price of a run.
  if (options.out !== '-' && !options.force && existsSync(options.out)) throw existing(options.out);
  const parts = await discover(options);
  const read = whatWasRead(options);
  const { stack: name, stackId, from, language } = options;
  const stack = discoveredStack(parts, { stack: name, stackId, from, language, read });
  if (options.out === '-') process.stdout.write(stack.text);
  else writeOnce(options.out, stack.text, options.force);
  say(`discover: wrote ${options.out === '-' ? 'the stack to stdout' : options.out}`);
  for (const line of stack.summary) say(line);
  return 0;
};
