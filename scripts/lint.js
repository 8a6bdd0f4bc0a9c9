#!/usr/bin/env node
// `npm run lint`: the type budget (scripts/type-budget.js), then prettier --check and eslint on the files that changed
// since they last passed. Both cost about
// 25 s of a quiet machine's CPU on the whole tree (measured: prettier 18.6 CPU-s, eslint 15.9) and more than a minute
// of CI's first pass under load, for a tree where a change touches a handful of files. Sound because every rule in
// eslint.config.js looks at one file alone (no typed or cross-file rule): a file whose content passed once passes
// again under the same tool versions and configuration, which the key below holds. The record lives in
// .cache/cdktf-homelab (.ci/run keeps it between runs); delete it, or run with
// CDKTF_HOMELAB_LINT_ALL=1, to check everything.
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const cacheDir = join(root, '.cache', 'cdktf-homelab');
const record = join(cacheDir, 'lint-passed');
const sha = (text) => createHash('sha256').update(text).digest('hex');
const read = (file) => (existsSync(join(root, file)) ? readFileSync(join(root, file)) : '');

// What decides a verdict besides the file itself: the tools' versions and configuration.
const key = sha(
  ['package-lock.json', 'eslint.config.js', '.prettierrc', '.prettierrc.json', '.prettierignore', '.editorconfig']
    .map((file) => `${file}\0${sha(read(file))}`)
    .join('\n'),
);
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
const files = git('ls-files', '-z', '--cached', '--others', '--exclude-standard')
  .split('\0')
  .filter((file) => file !== '' && existsSync(join(root, file)));
const stamp = (file) => sha(`${key}\0${file}\0${sha(read(file))}`);
const passed = new Set(
  process.env.CDKTF_HOMELAB_LINT_ALL === '1' || !existsSync(record) ? [] : readFileSync(record, 'utf8').split('\n'),
);
const changed = files.filter((file) => !passed.has(stamp(file)));
console.log(`lint: ${changed.length} of ${files.length} files changed since they last passed`);

const run = (bin, args, targets) => {
  if (targets.length === 0) return;
  execFileSync(join(root, 'node_modules', '.bin', bin), [...args, ...targets], { cwd: root, stdio: 'inherit' });
};
try {
  // The type budget (issue 29 item 2) reads every product file whatever changed: a count over the tree, 1 s.
  execFileSync(process.execPath, [join(root, 'scripts', 'type-budget.js')], { cwd: root, stdio: 'inherit' });
  run('prettier', ['--check', '--ignore-unknown'], changed);
  run(
    'eslint',
    ['--no-warn-ignored'],
    changed.filter((file) => /\.[cm]?[jt]s$/.test(file)),
  );
} catch {
  process.exit(1); // the tool printed what failed
}
mkdirSync(cacheDir, { recursive: true });
writeFileSync(record, `${files.map(stamp).join('\n')}\n`);
