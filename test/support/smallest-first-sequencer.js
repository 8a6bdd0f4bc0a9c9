// CI's second pass runs beside the first (.ci/run). Jest orders a cold run largest file first, so both
// passes reached the 50-unit fleet and the other heavy systemd suites at the same moment; this order
// (smallest first) puts each pass's heavy suites beside the other's light ones.
const fs = require('node:fs');

module.exports = class SmallestFirstSequencer {
  sort(tests) {
    const size = (test) => fs.statSync(test.path).size;
    return [...tests].sort((a, b) => size(a) - size(b) || (a.path < b.path ? -1 : 1));
  }

  shard(tests) {
    return tests;
  }

  cacheResults() {}
};
