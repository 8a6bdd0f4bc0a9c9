/**
 * An endpoint refused for what its URL carries is named without it: a user, a password or a query may hold a
 * secret, and the refusal reached the plan's output whole (an audit: a kubeconfig server `https://admin:S3cret@...`).
 */
import { shownEndpoint } from '../../../../../src/core/http/endpoint';
import { Endpoint } from '../../../../../src/core/http/request';
import { PveClient } from '../../../../../src/pve/client';

const SECRETS = [
  ['https://admin:SECRET@127.0.0.1:1', 'https://127.0.0.1:1'],
  ['https://SECRET@pve.lan:8006/api/', 'https://pve.lan:8006/api/'],
  ['https://127.0.0.1:6443/?access_token=SECRET', 'https://127.0.0.1:6443'],
  ['https://127.0.0.1:6443/k8s#SECRET', 'https://127.0.0.1:6443/k8s'],
];

test.each(SECRETS)('%s is shown as %s', (url, shown) => expect(shownEndpoint(url)).toBe(shown));

test('a URL that does not parse is not shown', () => expect(shownEndpoint('https://a:SECRET@[x')).toBe('(not a URL)'));

test.each(SECRETS)('an Endpoint refuses %s naming %s alone', (url, shown) => {
  const open = () => new Endpoint(url, {});
  expect(open).toThrow(`endpoint ${shown} refused: carrying a`);
  expect(open).not.toThrow(/SECRET/);
});

test.each(SECRETS)('a PVE client refuses %s naming %s alone', (url, shown) => {
  const open = () => new PveClient({ endpoints: [url], tokenEnv: 'T' }, { T: 'u@pve!t=x' });
  expect(open).toThrow(`${shown} is carrying a`);
  expect(open).not.toThrow(/SECRET/);
});
