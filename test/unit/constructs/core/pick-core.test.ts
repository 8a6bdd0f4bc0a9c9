import { type CoreCandidate, pickCore } from '../../../../constructs/core/pick-core';

const cdktf = (loaded: boolean): CoreCandidate => ({
  name: 'cdktf',
  path: '/p/node_modules/cdktf/lib/index.js',
  loaded,
});
const cdktn = (loaded: boolean): CoreCandidate => ({
  name: 'cdktn',
  path: '/p/node_modules/cdktn/lib/index.js',
  loaded,
});

describe('pickCore', () => {
  test.each([
    ['only cdktf installed', [cdktf(false)], 'cdktf'],
    ['only cdktn installed', [cdktn(false)], 'cdktn'],
    ['only cdktn installed and loaded', [cdktn(true)], 'cdktn'],
    ['both installed, the app loaded cdktn', [cdktf(false), cdktn(true)], 'cdktn'],
    ['both installed, the app loaded cdktf', [cdktf(true), cdktn(false)], 'cdktf'],
  ])('picks the library the app runs on: %s', (_, candidates, name) => {
    expect(pickCore(candidates, undefined).name).toBe(name);
  });

  test.each([
    ['cdktf', [cdktf(false), cdktn(true)]],
    ['cdktn', [cdktf(true), cdktn(false)]],
    ['cdktn', [cdktf(true), cdktn(true)]],
  ])('follows CDKTF_HOMELAB_CORE=%s over what is loaded', (override, candidates) => {
    expect(pickCore(candidates, override).name).toBe(override);
  });

  test('an empty override is no override', () => {
    expect(pickCore([cdktn(false)], '').name).toBe('cdktn');
  });

  test('fails naming the install command when neither library is installed', () => {
    expect(() => pickCore([], undefined)).toThrow(/needs cdktf or cdktn in this project: npm install cdktf@0\.21\.0/);
  });

  test.each([
    ['both are loaded', [cdktf(true), cdktn(true)], /both loaded: set CDKTF_HOMELAB_CORE=cdktf or/],
    [
      'both are installed and neither is loaded',
      [cdktf(false), cdktn(false)],
      /neither is loaded yet: set CDKTF_HOMELAB_CORE/,
    ],
  ])('fails naming the override when %s', (_, candidates, message) => {
    expect(() => pickCore(candidates, undefined)).toThrow(message);
  });

  test('fails when the override names a library that is not installed, or no library at all', () => {
    expect(() => pickCore([cdktf(true)], 'cdktn')).toThrow(/CDKTF_HOMELAB_CORE=cdktn but cdktn is not installed/);
    expect(() => pickCore([cdktf(true)], 'aws-cdk')).toThrow(
      /CDKTF_HOMELAB_CORE must be cdktf or cdktn, got "aws-cdk"/,
    );
  });
});
