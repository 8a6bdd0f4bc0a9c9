/**
 * An instance with an alias its template's [Install] does not make (`r@1.service -> p@.service` by hand): no
 * systemctl verb the apply has removes it (measured, systemd 252), so the plan said the apply re-enables it, the
 * apply did and its read-back failed after changing the instance. The decision: refuse it before any change, and
 * say so in the plan, whatever is-enabled says (`disabled` once its own links are gone: measured).
 */
import type { InstanceSpec } from '../../../../src/linux/systemd-instance';
import { aliasRefusalWords, refusedAliases } from '../../../../src/linux/unit-alias';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { diffUnit, summarizeUnit } from '../../../../src/linux/unit-diff';
import { comparedLinks, linkDrift, readLinks } from '../../../../src/linux/unit-links';
import { linkWords } from '../../../../src/linux/unit-link-judge';
import { status } from './unit-fixtures';

const E = '/etc/systemd/system';
const links = (...paths: string[]) =>
  readLinks(
    ['p@1.service'],
    ['@/etc/p@.service', '|WantedBy=a.target', ...paths.map((path) => `L${E}/${path}\t${E}/p@.service`)].join('\n'),
  )('p@1.service', ['/etc/p@.service'], () => true);
const instance: InstanceSpec = {
  name: 'p@1.service',
  template: 'p@.service',
  directory: E,
  enabled: true,
  started: false,
  restartOn: 'r1',
  startTimeoutSeconds: 90,
  unmask: false,
};
const live = (unitFileState: string, ...paths: string[]): LiveUnit => ({
  status: status({ unitFileState }),
  fileSha256: undefined,
  restartOn: 'r1',
  links: links(...paths),
});
const SAYS =
  `cannot compare links: ${E}/r@1.service, an alias its [Install] does not make, stays through systemctl disable ` +
  'and reenable (measured); the apply refuses it, removing that alias by hand ends it';

describe('the decision', () => {
  test('an instance declared enabled with such an alias is refused, naming it', () => {
    expect(refusedAliases(true, links('a.target.wants/p@1.service', 'r@1.service'))).toEqual([`${E}/r@1.service`]);
    expect(refusedAliases(true, links('r@1.service', 's@1.service'))).toEqual([`${E}/r@1.service`, `${E}/s@1.service`]);
  });

  test('one declared disabled, or without such an alias, is not: its disable leaves that alias too', () => {
    expect(refusedAliases(false, links('a.target.wants/p@1.service', 'r@1.service'))).toBeUndefined();
    expect(refusedAliases(true, links('a.target.wants/p@1.service'))).toBeUndefined();
    expect(refusedAliases(true, undefined)).toBeUndefined();
  });

  test('the refusal names the alias and how to end it', () => {
    expect(aliasRefusalWords([`${E}/r@1.service`])).toBe(
      `${E}/r@1.service, which systemd gives it as a name too and systemctl disable and reenable leave (measured); ` +
        `remove it by hand (rm ${E}/r@1.service) and apply again`,
    );
    expect(aliasRefusalWords([`${E}/r@1.service`, `${E}/s@1.service`])).toBe(
      `${E}/r@1.service, ${E}/s@1.service, which systemd gives it as names too and systemctl disable and reenable ` +
        `leave (measured); remove them by hand (rm ${E}/r@1.service ${E}/s@1.service) and apply again`,
    );
  });
});

describe("the plan's words", () => {
  // Regression: they said "the apply re-enables it", and the apply's read-back failed after its reenable.
  test('say the apply refuses it, for an instance enabled', () => {
    const drift = linkDrift(true, links('a.target.wants/p@1.service', 'r@1.service'));
    expect(linkWords(drift!, true)).toBe(SAYS);
    const before = live('enabled', 'a.target.wants/p@1.service', 'r@1.service');
    expect(summarizeUnit(instance, 'h:22', before, diffUnit(instance, before))).toBe(
      `unit p@1.service on h:22 (inactive/dead): ${SAYS}`,
    );
  });

  // Regression: is-enabled says `disabled` (measured), so the plan said "enabled is false, want true", and the
  // apply re-enabled and failed its read-back in the alias's words.
  test('say the apply refuses it, for an instance whose own links are gone', () => {
    const before = live('disabled', 'r@1.service');
    expect(summarizeUnit(instance, 'h:22', before, diffUnit(instance, before))).toBe(
      `unit p@1.service on h:22 (inactive/dead): ${SAYS}`,
    );
  });
});

// Regression: a template's alias of another name by hand was not compared, so it read in sync while systemd gave
// every instance that name too, and only the template's disable removes it, with every instance's links (measured).
describe("a template's alias of another name by hand", () => {
  const text = ['@/etc/d@.service', '|WantedBy=a.target', '|Alias=e@.service', '|DefaultInstance=x'];
  const found = (...paths: string[]) =>
    readLinks(['d@.service'], [...text, ...paths.map((path) => `L${E}/${path}\t${E}/d@.service`)].join('\n'))(
      'd@.service',
      ['/etc/d@.service'],
      () => true,
    );
  const made = ['a.target.wants/d@x.service', 'e@.service'];

  test('is not compared, and makes the read say why and the apply refuse a template declared enabled', () => {
    const read = found(...made, 'k@.service', 'a.target.wants/d@y.service', 'k@y.service');
    expect(read).toMatchObject({
      etc: [...made.slice(0, 1), 'a.target.wants/d@y.service', 'e@.service', 'k@y.service'],
    });
    expect(refusedAliases(true, read)).toEqual([`${E}/k@.service`]);
    expect(linkWords(linkDrift(true, read)!, true)).toBe(
      `cannot compare links: ${E}/k@.service, an alias its [Install] does not make, which systemd gives every ` +
        "instance as a name too and only systemctl disable d@.service removes, with every instance's links " +
        '(measured); the apply refuses it, removing that alias by hand ends it',
    );
    expect(aliasRefusalWords([`${E}/k@.service`])).toBe(
      `${E}/k@.service, which systemd gives every instance as a name too and only its disable removes, with every ` +
        `instance's links (measured); remove it by hand (rm ${E}/k@.service) and apply again`,
    );
  });

  test('its own aliases, and a template declared disabled, are as before', () => {
    expect(found(...made).aliases).toBeUndefined();
    expect(refusedAliases(false, found(...made, 'k@.service'))).toBeUndefined();
    expect(linkDrift(false, found(...made, 'k@.service'))?.stray).toEqual(made.map((path) => `${E}/${path}`));
  });
});

// Regression: a template without DefaultInstance= compared none of its links, so its alias removed by hand or one of
// another name made by hand read in sync (measured, systemd 252: its enable makes only its aliases).
describe('a template without DefaultInstance=', () => {
  const found = (...paths: string[]) =>
    readLinks(
      ['d@.service'],
      ['@/etc/d@.service', '|WantedBy=a.target', '|Alias=e@.service f@%i.service']
        .concat(paths.map((path) => `L${E}/${path}\t${E}/d@.service`))
        .join('\n'),
    )('d@.service', ['/etc/d@.service'], () => true);

  test("compares the aliases its enable makes (%i empty), not its instances' links", () => {
    const read = found('e@.service', 'a.target.wants/d@y.service', 'e@y.service');
    expect(read).toMatchObject({ install: ['e@.service', 'f@.service'], aliasesOnly: true });
    expect(comparedLinks(read)).toEqual({ etc: ['e@.service'], run: [] });
    expect(linkDrift(true, read)).toEqual({ stray: [], missing: [`${E}/f@.service`] });
    expect(linkDrift(false, read)).toEqual({ stray: [`${E}/e@.service`], missing: [] });
  });

  test('an alias of another name by hand is refused declared enabled, left declared disabled', () => {
    const read = found('e@.service', 'f@.service', 'k@.service');
    expect(refusedAliases(true, read)).toEqual([`${E}/k@.service`]);
    expect(linkWords(linkDrift(true, read)!, true)).toContain(
      `cannot compare links: ${E}/k@.service, an alias its [Install] does not make, which systemd gives every ` +
        "instance as a name too and only systemctl disable d@.service removes, with every instance's links",
    );
    expect(refusedAliases(false, read)).toBeUndefined();
  });
});
