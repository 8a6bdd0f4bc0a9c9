/**
 * The words with which a plan line says the apply will not converge what it names, and the one test of them. The
 * batch read's `.converges` (batch.ts) holds whether no drifted line says them, and only then does the drift
 * warning's last line promise convergence (constructs/core/batch-check.ts): it did under lines saying the apply
 * refuses their objects. A line the apply refuses says so in these words, wherever it is built.
 */

const UNCONVERGED_WORDS: readonly string[] = [
  // Kube refusals (kube-repo.ts), a unit's (unit-diff.ts, unit-links.ts, unit-mask.ts), an interface's type.
  'the apply refuses',
  // An object not created by this stack, or another stack's (ownership.ts).
  'the apply will refuse',
  // A field set at create only (kube-repo.ts).
  'the apply leaves',
  // A link enable cannot make, or a unit declared enabled that nothing links: the apply's enable fails or the apply
  // refuses it (unit-install.ts, unit-enable.ts, template-enable.ts).
  'systemctl enable refuses it',
  'so it cannot be enabled',
  // A removal PVE's writer refuses, as the destroy does (removal-block.ts).
  'PVE refuses that while',
  // An object the plan could not read (batch.ts `unreadable`): whether the apply converges it depends on why.
  'cannot be read: ',
];

/** Whether `line` says the apply will not converge (all of) what it names. */
export const saysUnconverged = (line: string): boolean => UNCONVERGED_WORDS.some((words) => line.includes(words));
