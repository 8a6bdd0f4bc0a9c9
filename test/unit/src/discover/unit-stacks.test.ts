// Issue 27 item 3: discover leaves out what another stack's mark names and says which stack, against the one it writes.
import { hostFiles } from './host-files';
import { systemdDeclarations } from '../../../../src/discover/systemd';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { runningStatus } from '../../../support/unit-status';

const UNITS = ['blue.service', 'green.service', 'older.service', 'half.service', 'hand.service'];
const UNIT = '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const DROP_IN = '[Service]\nNice=1\n';
const status: LiveUnit['status'] = runningStatus();

/** Units and a drop-in whose records, marks and intents name stacks as `marks` says. */
const discovered = (marks: Record<string, Partial<LiveUnit>>, stackId?: string) => {
  const files = { ...Object.fromEntries(UNITS.map((name) => [name, UNIT])), 'hand.service.d/10-a.conf': DROP_IN };
  const { found, live } = hostFiles(files, status, (path) => marks[path] ?? {});
  return systemdDeclarations({ host: 'h' }, found, live, new Set(), stackId);
};

const MARKS: Record<string, Partial<LiveUnit>> = {
  'blue.service': { restartOn: 'r'.repeat(64), recordStack: 'blue' },
  'green.service': { restartOn: 'r'.repeat(64), recordStack: 'green' },
  'older.service': { restartOn: 'r'.repeat(64) },
  'half.service': { intent: { since: 1, restart: true, stack: 'blue' } },
  'hand.service.d/10-a.conf': { restartOn: 'cdktf-homelab', recordStack: 'blue' },
};

test('each object a stack marked is left out, saying which stack and whether it is the one discover writes', () => {
  const read = discovered(MARKS, 'green');
  expect(read.declarations.map((d) => d.key)).toEqual(['ssh', 'unit:hand.service']);
  const record = (name: string) => `its restartOn record /var/lib/cdktf-homelab/restart-on/${name} is there`;
  expect(read.skipped).toEqual(
    [
      { what: 'blue.service', why: `${record('blue.service')}: marked by stack "blue", not this stack "green"` },
      { what: 'green.service', why: `${record('green.service')}: marked by this stack "green" already` },
      { what: 'older.service', why: record('older.service') },
      {
        what: 'half.service',
        why:
          "an apply's intent /var/lib/cdktf-homelab/intents/half.service is there (that apply did not finish): " +
          'marked by stack "blue", not this stack "green"',
      },
      {
        what: '/etc/systemd/system/hand.service.d/10-a.conf',
        why:
          'its mark /var/lib/cdktf-homelab/drop-ins/etc/systemd/system/hand.service.d/10-a.conf is there: ' +
          'marked by stack "blue", not this stack "green"',
      },
    ].map((skipped) => ({ ...skipped, group: 'managed' })),
  );
});
