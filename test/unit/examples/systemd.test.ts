import { Testing } from 'cdktf';
import { NodeCheckStack } from '../../../examples/systemd';
import { parsedEntry } from '../constructs/batch-apply';

// systemd refuses to start a timer whose unit is not loaded: the example orders the check's file first.
test("the example's timer is applied after the check service it starts, and destroyed before it", () => {
  const stack = new NodeCheckStack(Testing.app(), 'node-check', {
    host: '127.0.0.1',
    port: 22,
    user: 'root',
    hostKey: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  });
  const synth = JSON.parse(Testing.synth(stack));
  const resources = synth.resource.terraform_data;
  expect(parsedEntry(synth, 'node', 'check-timer').after).toEqual(['check']);
  expect(parsedEntry(synth, 'node', 'check').after).toBeUndefined();
  expect(resources['check-timer_lifecycle'].depends_on).toEqual(['terraform_data.check_lifecycle']);
  expect(resources['check_lifecycle'].depends_on).toBeUndefined();
});

// SshHost refuses a prop it does not have: the example keeps its own checkSeconds to itself.
test("the example's checkSeconds reaches the check's ExecStart, not the host", () => {
  const stack = new NodeCheckStack(Testing.app(), 'node-check', {
    host: '127.0.0.1',
    port: 22,
    user: 'root',
    hostKey: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    checkSeconds: 5,
  });
  expect(parsedEntry(JSON.parse(Testing.synth(stack)), 'node', 'check').spec.content).toContain('sleep 5;');
});
