/**
 * Seed 002's unit-activating cases on real systemd 252: a timer-driven oneshot mid-run is not
 * drift and is never stopped; a crash loop declared started:false is drift and is stopped.
 * A unit a test needs `activating` stays so until the test releases it (a gate file), never for a
 * fixed time: a 3 s run ended before the apply read it under CI's load (10-22 on 2 cores), so the apply
 * found it active and the test failed.
 */
import { type Clock, systemClock } from '../../../src/core/clock';
import { appliedMark, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();

/** The file whose creation ends the run of `name`'s ExecStart. */
const gate = (name: string) => `/run/${name}.go`;
/** An ExecStart that runs (the unit `activating/start`) until the test creates `gate(name)`. */
const untilReleased = (name: string) => `ExecStart=/bin/sh -c "until [ -e ${gate(name)} ]; do sleep 0.1; done"\n`;

/** No [Install]: a timer starts it, so it is declared enabled:false, started:false. */
const oneshot = (name: string, description = 'node check') =>
  `[Unit]\nDescription=${description}\n\n[Service]\nType=oneshot\n${untilReleased(name)}`;

/**
 * The real clock, except that the handler's first sleep without a deadline's signal (its settle's wait
 * for the next poll, after it read the unit not yet active) first records the unit's state and releases
 * its gate: the unit becomes active while the apply waits for it, however loaded the machine.
 */
const releasingClock = (name: string) => {
  const seen: string[] = [];
  const clock: Clock = {
    now: systemClock.now,
    sleep: async (ms, signal) => {
      if (signal === undefined && seen.length === 0) {
        const now = await unit.show(name);
        seen.push(`${now.ActiveState}/${now.SubState}`);
        await host().exec(`touch ${gate(name)}`);
      }
      return systemClock.sleep(ms, signal);
    },
  };
  return { clock, seen };
};

describe('started:false against a oneshot mid-run', () => {
  test('reads in sync while activating, and apply does not stop the run', async () => {
    const spec = unitSpec('check-a.service', oneshot('check-a.service'), { enabled: false, started: false });
    expect((await unit.run('apply', spec)).code).toBe(0);
    await host().exec('systemctl start --no-block check-a.service');
    const running = await unit.waitFor('check-a.service', 'activating/start');
    expect((await unit.run('read', spec)).result).toMatchObject({ in_sync: 'true' });
    const applied = await unit.run('apply', spec);
    expect(applied.code).toBe(0);
    const after = await unit.show('check-a.service');
    expect(`${after.ActiveState}/${after.SubState}`).toBe('activating/start');
    expect(after.InvocationID).toBe(running.InvocationID);
  });

  test('an unrelated file change during the run updates the file but does not stop the run', async () => {
    const spec = unitSpec('check-b.service', oneshot('check-b.service'), { enabled: false, started: false });
    await unit.run('apply', spec);
    await host().exec('systemctl start --no-block check-b.service');
    const running = await unit.waitFor('check-b.service', 'activating/start');
    const changed = unitSpec('check-b.service', oneshot('check-b.service', 'node check v2'), {
      enabled: false,
      started: false,
    });
    const drift = (await unit.run('read', changed)).result;
    expect(drift?.in_sync).toBe('false');
    expect(drift?.summary).toMatch(/file is "not the declared content \(\d+ bytes\)", want "sha256:[0-9a-f]{12}"/);
    expect((await unit.run('apply', changed)).code).toBe(0);
    const after = await unit.show('check-b.service');
    expect(after.InvocationID).toBe(running.InvocationID);
    expect((await host().exec('cat /etc/systemd/system/check-b.service')).stdout).toContain('node check v2');
  });

  test('an active unit declared started:false is drift, and apply stops it', async () => {
    const content = '[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n';
    const spec = unitSpec('check-c.service', content, { enabled: false, started: false });
    await unit.run('apply', spec);
    await host().exec('systemctl start check-c.service');
    const drift = (await unit.run('read', spec)).result;
    expect(drift?.summary).toBe(
      'unit check-c.service on 127.0.0.1:' +
        host().port +
        ' (active/exited) differs: running is "active/exited", want "stopped"',
    );
    expect((await unit.run('apply', spec)).stderr).toBe(
      [
        `127.0.0.1:${host().port}: wrote the intents of 1 object (/var/lib/cdktf-homelab/intents)`,
        `check-c.service on 127.0.0.1:${host().port}: stopped`,
      ].join('\n'),
    );
    expect((await unit.show('check-c.service')).ActiveState).toBe('inactive');
    expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
  });

  test('a failed unit is not running: started:false reads in sync', async () => {
    const spec = unitSpec('check-d.service', '[Service]\nType=oneshot\nExecStart=/bin/false\n', {
      enabled: false,
      started: false,
    });
    await unit.run('apply', spec);
    await host().exec('systemctl start check-d.service');
    expect((await unit.show('check-d.service')).ActiveState).toBe('failed');
    expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
  });

  test('a real crash loop declared started:false is drift, and apply stops it', async () => {
    const crashy = '[Service]\nExecStart=/bin/false\nRestart=on-failure\nRestartSec=2\n';
    const spec = unitSpec('check-e.service', crashy, { enabled: false, started: false });
    await unit.run('apply', spec);
    await host().exec('systemctl start check-e.service');
    await unit.waitFor('check-e.service', 'activating/auto-restart');
    const drift = (await unit.run('read', spec)).result;
    expect(drift?.in_sync).toBe('false');
    expect(drift?.summary).toMatch(/running is "(activating\/auto-restart|active\/running)", want "stopped"/);
    expect((await unit.run('apply', spec)).code).toBe(0);
    expect((await unit.show('check-e.service')).ActiveState).toMatch(/inactive|failed/);
    expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
  });
});

describe('started:true keeps counting activating as running', () => {
  test('no second start is issued while the unit is activating, and apply waits until it is active', async () => {
    const content = `[Service]\nType=oneshot\nRemainAfterExit=yes\n${untilReleased('check-f.service')}`;
    const spec = unitSpec('check-f.service', content, { enabled: false, started: true });
    await host().exec(
      `printf '%s' '${content}' > /etc/systemd/system/check-f.service && ${appliedMark(spec)} && ` +
        'systemctl daemon-reload',
    );
    await host().exec('systemctl start --no-block check-f.service');
    const running = await unit.waitFor('check-f.service', 'activating/start');
    expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
    const { clock, seen } = releasingClock('check-f.service');
    const applied = await unit.run('apply', spec, undefined, clock);
    // The apply waited on the run it found (released only then), and said so when it ended.
    expect(seen).toEqual(['activating/start']);
    expect(applied).toMatchObject({
      code: 0,
      stderr: [
        `127.0.0.1:${host().port}: wrote the intents of 1 object (/var/lib/cdktf-homelab/intents)`,
        `check-f.service on 127.0.0.1:${host().port}: became active`,
      ].join('\n'),
    });
    expect(await unit.show('check-f.service')).toMatchObject({
      ActiveState: 'active',
      InvocationID: running.InvocationID,
    });
  });

  test('a started:true oneshot that ends without becoming active fails, not passing as running', async () => {
    const spec = unitSpec('check-g.service', `[Service]\nType=oneshot\nExecStart=/bin/sleep 1\n`, {
      enabled: false,
      started: true,
    });
    const failed = await unit.run('apply', spec);
    expect(failed.stderr).toMatch(
      /check-g.service did not become active: it is inactive\/dead; its last \d+ journal lines are above/,
    );
  });
});
