/**
 * What a plan read of a node's network interface, which its apply must still find before it stages: an interface
 * edited on the node between the plan and the apply (a hand PUT in the web UI, a staged file reverted, the running
 * file edited) had its edit overwritten by the apply's PUT, or was created again after a deletion, though the plan
 * never named it. The plan's reading travels as the interface's basis (Reading.basis); the apply refuses it alone
 * when its own read, just before its write, differs.
 */
import { digestOf } from '../core/canonical';
import { HandlerError } from '../core/errors';
import { notAsPlanned } from '../core/not-as-planned';
import { diffInterface, findInterface } from './network-interface-diff';
import type { NetworkInterfaceSpec } from './network-interface';

const ABSENT = 'interface absent';
const READ = 'interface read ';
/**
 * Kept out of the digest: the free lines (`options`, `options6`: where `wpa-psk` and `pre-up` land, so possibly a
 * secret, and which PVE's update keeps as they are) and what moves with no write to the interface (`active` and
 * `exists` with a reload, `priority` with another interface's place in the file).
 */
const LEFT_OUT = new Set(['options', 'options6', 'active', 'exists', 'priority']);

/**
 * The interface's row in the node's view (the staged one while interfaces.new exists, as the read compares it) as a
 * digest, 16 hex digits like a metric server's; a row of another type reads as absent, as for a metric server: a
 * type change stages the old one's removal (its lifecycle's replacement, which the plan names) before the create.
 */
export const interfaceBasis = (spec: NetworkInterfaceSpec, rows: unknown): string => {
  const live = findInterface(rows, spec.iface);
  if (live === undefined || diffInterface(spec, live).state === 'foreign') return ABSENT;
  return `${READ}${rowDigest(live)}`;
};

/** A row as 16 hex digits, without what LEFT_OUT names nor the fields of `also`; the network apply's too. */
export const rowDigest = (row: Readonly<Record<string, unknown>>, also: readonly string[] = []): string => {
  const kept = Object.entries(row).filter(([key]) => !LEFT_OUT.has(key) && !also.includes(key));
  return digestOf(Object.fromEntries(kept)).slice(0, 16);
};

/**
 * Why the apply must not stage the interface: the node's rows read now otherwise for it than the plan read them
 * (`planned`). Undefined when they agree. Refused before its stage, it leaves the node's staged file as it found it,
 * and a network apply of the stack comes after it (network-wiring.ts), so it reloads nothing this run.
 */
export const interfaceMoved = (
  spec: NetworkInterfaceSpec,
  planned: string,
  rows: unknown,
): HandlerError | undefined => {
  const now = interfaceBasis(spec, rows);
  if (now === planned) return undefined;
  const moved =
    planned === ABSENT
      ? 'it was created after the plan read it absent, so this apply would write over what its maker set'
      : now === ABSENT
        ? 'it was deleted (or its name taken by an interface of another type) after the plan read it, so this ' +
          'apply would create it'
        : "it was changed after the plan read it (a field of its row in the node's view: edited, staged or " +
          'reverted by hand), so this apply would write over that change';
  return notAsPlanned(
    `interface ${spec.iface} on ${spec.node}`,
    moved,
    "nothing was staged for it, the node's staged changes are left as they are, and no network apply after it " +
      'reloads them in this run',
  );
};
