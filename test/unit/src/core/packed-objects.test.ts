// packObjects/unpackObjects: the batch read's objects known at synth travel in one query field and come
// back as the per-object JSON text an unpacked field holds; anything else in that field fails the read.
import { gzipSync } from 'node:zlib';
import { packObjects, unpackObjects } from '../../../../src/core/packed-objects';

describe('packed objects', () => {
  test("come back as each object's JSON text by name, template sequences as written", () => {
    const entries = {
      one: { kind: 'widget', spec: { id: 'w1', size: 1 } },
      two: { kind: 'widget', spec: { id: 'w2', note: 'echo ${HOME} %{x}' } },
    };
    expect(unpackObjects(packObjects(entries), '.objects')).toEqual({
      one: '{"kind":"widget","spec":{"id":"w1","size":1}}',
      two: '{"kind":"widget","spec":{"id":"w2","note":"echo ${HOME} %{x}"}}',
    });
  });

  test('pack 300 KubeRepo-like entries into a tenth of their JSON or less', () => {
    const spec = (i: number) => ({
      key: `bench-${i}`,
      url: `https://git.example/me/bench-${i}.git`,
      version: 'v1alpha1',
    });
    const entries = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`repo${i}`, { kind: 'kube-repo', spec: spec(i) }]),
    );
    expect(packObjects(entries).length).toBeLessThan(JSON.stringify(entries).length / 10);
  });

  test.each([
    ['text that is not gzip', 'bm90IGd6aXA=', /^Bad input: \.objects is not packed objects/],
    ['gzip of text that is not JSON', gzipSync('nope').toString('base64'), /^Bad input: \.objects is not JSON/],
    ['gzip of a JSON list', gzipSync('[1]').toString('base64'), /^Bad input: \.objects: /],
    // Issue 27: 78 KB of gzip grew to 3 GB under the old 64 MiB cap, or nested until the stack overflowed.
    [
      'gzip nested a million levels deep',
      gzipSync(`{"a":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`).toString('base64'),
      /^Bad input: \.objects is nested deeper than 128 levels$/,
    ],
    [
      'gzip that unpacks past 16 MiB',
      gzipSync(`{"a":"${'x'.repeat(17 * 1024 * 1024)}"}`).toString('base64'),
      /^Bad input: \.objects is not packed objects \(.*(buffer|length|exceed)/i,
    ],
  ])('refuse %s', (_, text, message) => {
    expect(() => unpackObjects(text, '.objects')).toThrow(message);
  });
});
