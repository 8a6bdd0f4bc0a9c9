/**
 * The unprivileged commands a unit handler sends, built in one place so every operand is quoted, and
 * how it reads the answers of the privileged steps it asks of the root helper (root-helper.ts).
 */
import { quote } from './shell';

/**
 * A command taking any number of units, and the script it reads on stdin: many hundreds of unit
 * names would pass the kernel's 128 KiB limit on one argument. Unprivileged: `systemctl show`.
 */
export const manyUnitsCommand = (verb: string, names: readonly string[], ...flags: string[]) => ({
  command: 'sh -s',
  script: `systemctl ${[verb, ...flags].join(' ')} -- ${names.map(quote).join(' ')}\n`,
});

/**
 * The units a `systemctl start|stop|restart` of many did not queue, each with systemctl's line; it
 * goes on after a unit it cannot queue (measured, systemd 252: `Failed to start x.service: Unit
 * x.service not found.`).
 */
export const notQueued = (verb: string, stderr: string): Map<string, string> => {
  const failed = new Map<string, string>();
  for (const line of stderr.split('\n')) {
    const match = /^Failed to (\S+) (\S+): /.exec(line);
    if (match?.[1] === verb && match[2] !== undefined) failed.set(match[2], line);
  }
  return failed;
};

/**
 * Exit code of the helper's unmask when a real file, not a /dev/null link, masks the unit: an empty
 * regular file masks a unit too, and `systemctl unmask` deletes it (measured, systemd 252); it may be
 * someone's file, so the helper refuses and names it.
 */
export const UNMASK_REFUSED = 3;
