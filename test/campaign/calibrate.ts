/**
 * The campaign checks its own eyes before the first round: a process older than its unit file, made by hand
 * (the other variant's file started, then the declared file put back and systemd reloaded, no restart), must be
 * seen by the verifier, or every "converged" after it would mean nothing. The plan must name it too (DESIGN.md:
 * a process started before its current content is drift, whoever caused it); a clean plan counts as a lie.
 */
import { unitText } from '../../src/linux/render-unit';
import { plan, verify, type Stand } from './stand';
import { otherVariant, unitSections, units, type Variant } from './variant';

export interface Calibration {
  readonly line: string;
  /** The plan was clean while the process ran older content. */
  readonly lied: boolean;
}

export const calibrate = async (stand: Stand, v: Variant): Promise<Calibration> => {
  const unit = units(v)[0];
  if (unit === undefined) throw new Error('calibration: the variant declares no unit');
  const path = `/etc/systemd/system/${unit.name}`;
  const before = units(otherVariant(v)).find((other) => other.name === unit.name) ?? unit;
  const old = Buffer.from(unitText(unitSections(before, otherVariant(v)))).toString('base64');
  const script = [
    `cp '${path}' /root/fa-calibration`,
    `printf '%s' '${old}' | base64 -d > '${path}'`,
    'systemctl daemon-reload',
    `systemctl restart '${unit.name}'`,
    // A second later: the read compares a file's mtime with the process's start in whole seconds (README).
    'sleep 1.1',
    `cp /root/fa-calibration '${path}' && rm /root/fa-calibration`,
    'systemctl daemon-reload',
  ].join(' && ');
  const made = await stand.targets.host.exec(script);
  if (made.code !== 0) throw new Error(`calibration: the stale process could not be made: ${made.stderr}`);
  const seen = await verify(stand, v);
  const planned = await plan(stand);
  await stand.targets.host.exec(`systemctl restart '${unit.name}'`);
  const after = await verify(stand, v);
  if (!seen.some((diff) => diff.startsWith(`${unit.name}: its process`)) || after.length > 0) {
    throw new Error(
      `calibration: the verifier missed a stale process (${seen.join('; ')}) or its repair (${after.join('; ')})`,
    );
  }
  const answer = planned.code === 2 ? 'names it' : planned.code === 0 ? 'is clean: it lies' : 'fails';
  const line = `calibration: a process older than its unit file (by hand): the campaign sees it, the plan ${answer}`;
  return { line, lied: planned.code === 0 };
};
