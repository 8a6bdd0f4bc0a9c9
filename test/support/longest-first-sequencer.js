// Jest hands each test file to whichever of its workers is free, so the files that run longest go first and the
// short ones fill the gaps at the end. A fresh clone has no jest timing cache to order by, so the order is: the
// files measured longest in CI (probes 160-200 s, package 45-135 s, cdktn 45-60 s, the Ctrl-C test 65-90 s), then the
// tiers that run real terraform, systemd or an API server, then the rest; each group largest file first.
const fs = require('node:fs');

const LONGEST = [
  'test/e2e/probes.test.ts',
  'test/e2e/package.test.ts',
  'test/e2e/cdktn.test.ts',
  'test/support/interrupt-run.test.ts',
];
const TIERS = ['test/e2e/', 'test/contract/', 'test/faults/', 'test/support/', 'test/fakes/'];

const rank = (file) => {
  const longest = LONGEST.findIndex((name) => file.endsWith(name));
  if (longest >= 0) return longest;
  const tier = TIERS.findIndex((dir) => file.includes(`/${dir}`));
  return LONGEST.length + (tier >= 0 ? tier : TIERS.length);
};

module.exports = class LongestFirstSequencer {
  sort(tests) {
    const size = (test) => fs.statSync(test.path).size;
    return [...tests].sort((a, b) => rank(a.path) - rank(b.path) || size(b) - size(a) || (a.path < b.path ? -1 : 1));
  }

  shard(tests) {
    return tests;
  }

  cacheResults() {}
};
