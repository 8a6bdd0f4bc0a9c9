/**
 * The words that make a drift warning end without promising convergence, tried on the lines the plan builds: each
 * line saying the apply refuses or leaves what it names is caught, and the lines the apply converges are not.
 */
import type { Reading } from '../../../../src/core/kind';
import { foreignReading, otherStackReading } from '../../../../src/core/ownership';
import { saysUnconverged } from '../../../../src/core/unconverged';
import {
  deletionLeft,
  intervalLeft,
  type LiveRepo,
  refusedAbsent,
  type RepoSpec,
} from '../../../../src/kube/kube-repo';
import { aliasApplyWords } from '../../../../src/linux/unit-alias';
import { cannotEnable } from '../../../../src/linux/unit-enable';
import { maskWords } from '../../../../src/linux/unit-mask';
import { FOREIGN_REFUSED } from '../../../../src/pve/network-apply';
import { summarizeInterface } from '../../../../src/pve/network-interface-diff';
import type { NetworkInterfaceSpec } from '../../../../src/pve/network-interface';

const inSync: Reading = { inSync: true, summary: 'in sync', diff: {} };
const bridge = { node: 'n2', iface: 'eno1', type: 'bridge' } as NetworkInterfaceSpec;
const repo = { refreshInterval: '5m' } as RepoSpec;
const masked = { name: 'a.service', directory: '/etc/systemd/system', unmask: false };
const enabled = { name: 'a.service', enabled: true };

describe('saysUnconverged', () => {
  test.each([
    ['an object not created by this stack, not adopted', foreignReading(inSync, false, 'shelf a').summary],
    ['an object of another stack, not taken over', otherStackReading(inSync, 'one', 'two', false, 'shelf a').summary],
    ['a Repo its cluster cannot hold', refusedAbsent('the namespace gone does not exist', 'create it first')],
    ['a Repo interval set at create only', intervalLeft(repo, { spec: { refreshInterval: '1h' } } as LiveRepo)],
    ['a Repo being deleted', deletionLeft({ metadata: { deletionTimestamp: '2026-12-07T00:00:00Z' } })],
    ['an interface of another type', summarizeInterface(bridge, { state: 'foreign', liveType: 'eth' })],
    ['a unit with an alias its [Install] does not make', aliasApplyWords(['/etc/systemd/system/b.service'])],
    ['a masked unit not unmasked', maskWords(masked, { loadState: 'masked', unitFileState: 'masked' })],
    ['a network reload someone else staged for', FOREIGN_REFUSED],
    ['a unit declared enabled that nothing links', cannotEnable(enabled, undefined, [], { unitFileState: 'static' })],
    ['a unit enable cannot link', 'cannot compare links: Alias=b: systemctl enable refuses it (no /etc/machine-id)'],
    ['a removal PVE refuses', 'n1: settled, vmbr9 to be deleted if this plan destroys it (PVE refuses that while x)'],
    ['an object the plan could not read', 'cannot be read: unit a.service on h: Permission denied'],
  ])('a line saying the apply will not converge it is caught: %s', (_, line) => {
    expect(saysUnconverged(line ?? '')).toBe(true);
  });

  test.each([
    ['an object to adopt', foreignReading(inSync, true, 'shelf a').summary],
    ['an object to take over', otherStackReading(inSync, 'one', 'two', true, 'shelf a').summary],
    ['an absent object', 'metric server "influx" is absent'],
    ['a drifted field', 'metric server "influx" differs: port is 9999, want 8089'],
    ['a unit the apply re-enables', 'cannot compare links: x; the apply re-enables it, an [Install] without it reads'],
  ])('a line the apply converges is not: %s', (_, line) => {
    expect(saysUnconverged(line)).toBe(false);
  });
});
