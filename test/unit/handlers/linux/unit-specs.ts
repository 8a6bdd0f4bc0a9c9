/** The unit specs the handler tests apply to the fake systemd: a long-running service, enabled and started. */
import { digestOf } from '../../../../src/core/canonical';
import type { UnitSpec } from '../../../../src/linux/systemd-unit';

export const DIR = '/etc/systemd/system';

export const service = (exec = '/bin/sleep infinity') =>
  `[Service]\nExecStart=${exec}\n[Install]\nWantedBy=multi-user.target\n`;

export const unit = (name: string, content = service(), over: Partial<UnitSpec> = {}): UnitSpec => ({
  name,
  directory: DIR,
  content,
  enabled: true,
  started: true,
  restartOn: digestOf([]),
  startTimeoutSeconds: 5,
  unmask: false,
  ...over,
});
