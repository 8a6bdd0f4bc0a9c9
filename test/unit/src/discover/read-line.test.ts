// discover's header says what it read, a target a line, lists as words (String() of an array joins with a bare comma).
import { whatWasRead } from '../../../../src/discover/main';
import { parseOptions } from '../../../../src/discover/options';

const HOST_KEY = `SHA256:${'A'.repeat(43)}`;

const optionsOf = (args: string[]) => {
  const parsed = parseOptions(args);
  if (!('options' in parsed)) throw new Error(`not parsed: ${JSON.stringify(parsed)}`);
  return parsed.options;
};

test('endpoints, nodes and namespaces are listed with a comma and a space, one line a target', () => {
  const options = optionsOf([
    '--pve-endpoint=https://n1:8006,https://n2:8006',
    '--node=n1,n2',
    '--ssh-host',
    '10.0.0.2',
    '--ssh-host-key',
    HOST_KEY,
    '--unit-glob=web*,db*',
    '--namespace=jr2,lab',
  ]);
  expect(whatWasRead(options)).toEqual([
    'PVE cluster https://n1:8006, https://n2:8006, nodes n1, n2',
    'SSH host 10.0.0.2:22, units web* db*',
    'Kubernetes namespaces jr2, lab',
  ]);
});

test('a cluster read without --node says no nodes', () => {
  expect(whatWasRead(optionsOf(['--pve-endpoint', 'https://n1:8006']))).toEqual(['PVE cluster https://n1:8006']);
});
