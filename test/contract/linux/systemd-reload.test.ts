/**
 * The coalesced daemon-reload on real systemd 252: twelve handlers that each changed a loaded unit's
 * file and asked for a reload at the same moment all find their change loaded when the command
 * returns, with fewer reloads than asks; without its state directory it is a plain reload.
 */
import { reloadCommand, RELOAD_STATE } from '../../../src/linux/unit-commands';
import { quote } from '../../../src/linux/shell';
import { useSystemdHost } from '../../support/unit-host';

jest.setTimeout(180_000);

const { host } = useSystemdHost();
const UNITS = 12;

const reloadsSoFar = async () =>
  Number((await host().exec(`cat ${RELOAD_STATE}/reloads 2>/dev/null || echo 0`)).stdout);
const systemdReloads = async () =>
  Number((await host().exec('journalctl _PID=1 --no-pager -o cat | grep -c "^Reloading" || true')).stdout);

beforeAll(async () => {
  const units = Array.from({ length: UNITS }, (_, i) => `rl-${i}.service`);
  await host().exec(
    units.map((u) => `printf '[Service]\\nExecStart=/bin/sleep infinity\\n' > /etc/systemd/system/${u}`).join('; ') +
      `; systemctl daemon-reload && systemctl start ${units.join(' ')}`,
  );
  await host().exec(`printf '%s\\n' ${quote(reloadCommand(false))} > /root/reload.sh`);
});

test('concurrent asks each see their change loaded, and share reloads', async () => {
  const [countBefore, systemdBefore] = [await reloadsSoFar(), await systemdReloads()];
  const out = await host().exec(
    `for i in $(seq 0 ${UNITS - 1}); do (` +
      `printf '[Unit]\\nDescription=changed %s\\n[Service]\\nExecStart=/bin/sleep infinity\\n' $i ` +
      `> /etc/systemd/system/rl-$i.service && sh /root/reload.sh && ` +
      `echo "rl-$i $(systemctl show -p NeedDaemonReload,Description --value rl-$i.service | tr '\\n' ' ')") & ` +
      'done; wait',
  );
  const lines = out.stdout.trim().split('\n').sort();
  expect(lines).toHaveLength(UNITS);
  for (const line of lines) expect(line).toMatch(/^rl-(\d+) changed \1 no\s*$/);
  const asked = (await reloadsSoFar()) - countBefore;
  const ran = (await systemdReloads()) - systemdBefore;
  expect(asked).toBe(ran);
  expect(ran).toBeGreaterThanOrEqual(1);
  expect(ran).toBeLessThan(UNITS);
  console.log(`${UNITS} concurrent asks ran ${ran} reloads`);
});

test('without a writable /run/cdktf-homelab it is a plain reload', async () => {
  await host().exec(`rm -rf ${RELOAD_STATE} && touch ${RELOAD_STATE}`);
  try {
    await host().exec(
      "printf '[Unit]\\nDescription=plain\\n[Service]\\nExecStart=/bin/sleep infinity\\n' " +
        '> /etc/systemd/system/rl-0.service',
    );
    const result = await host().exec('sh /root/reload.sh; echo "exit $?"');
    expect(result.stdout.trim()).toBe('exit 0');
    expect((await host().exec('systemctl show -p NeedDaemonReload,Description --value rl-0.service')).stdout).toBe(
      'plain\nno\n',
    );
  } finally {
    await host().exec(`rm -f ${RELOAD_STATE}`);
  }
});
