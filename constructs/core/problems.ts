/**
 * The app's problems: each construct records what is wrong with its props while the app builds, and synth
 * fails with ONE ValidationError listing every problem of every construct of every stack, one line each.
 * Thrown at construction, the first broken construct stopped the app, and a user fixed and re-ran once per
 * mistake (issue 29).
 */
import type { IConstruct } from 'constructs';
import { ValidationError } from '../../src/core/errors';
import type { Problem } from '../../src/core/rules';
import { TerraformElement, TerraformStack } from './cdk';

/** One problem and the path of the construct it is about. */
export interface ConstructProblem extends Problem {
  readonly path: string;
}

/** Per construct tree (its root, the App), the problems recorded so far, in the order they were found. */
const recorded = new WeakMap<IConstruct, ConstructProblem[]>();
/** Per construct tree, the checks that need the whole app built, run when a synth starts. */
const atSynth = new WeakMap<IConstruct, Array<() => void>>();
/** The constructs that built nothing: their props broke a rule, or a construct they name did. */
const refusedConstructs = new WeakSet<object>();
const GATE = 'cdktf-homelab-problems';

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * `<construct path>: <prop> <says>` per problem, under `5 problems in 3 constructs:` when there are
 * several; one problem is the one line, as a ValidationError of one construct reads.
 */
export const describeAppProblems = (problems: readonly ConstructProblem[]): string => {
  const lines = problems.map((problem) => `${problem.path}: ${problem.prop} ${problem.says}`);
  if (lines.length === 1) return lines.join('');
  const constructs = new Set(problems.map((problem) => problem.path)).size;
  return [`${plural(lines.length, 'problem')} in ${plural(constructs, 'construct')}:`, ...lines].join('\n');
};

/** Every problem of the app in one error: still a ValidationError, for code that catches one. */
export class AppValidationError extends ValidationError {
  constructor(readonly problems: readonly ConstructProblem[]) {
    // ValidationError's own message is one construct's `<path>: <message>`; this one lists many.
    super('', '');
    this.message = describeAppProblems(problems);
  }
}

/**
 * Fails the synth of the stack it sits in with the app's problems, the checks run at synth included, and
 * adds nothing to a sound stack. An element is resolved in cdktf's prepareStack, which runs for every stack
 * before any stack is written, and by `Testing.synth`, whatever `skipValidation` says; an Aspect on the App
 * is never visited (cdktf 0.21 and cdktn visit each stack's own, after every stack's prepareStack).
 */
class ProblemsGate extends TerraformElement {
  override toMetadata() {
    return this.pass(super.toMetadata());
  }

  override toTerraform() {
    return this.pass(super.toTerraform());
  }

  override toHclTerraform() {
    return this.pass(super.toHclTerraform());
  }

  private pass<T>(nothing: T): T {
    if (hasProblems(this)) throw appProblems(this);
    return nothing;
  }
}

/** The gate of `scope`'s stack, placed once; none outside a stack. */
const gate = (scope: IConstruct): boolean => {
  const stack = scope.node.scopes.find(TerraformStack.isStack);
  if (stack === undefined) return false;
  if (stack.node.tryFindChild(GATE) === undefined) new ProblemsGate(stack, GATE);
  return true;
};

/** The error listing every problem recorded in `scope`'s app, with `more` recorded first. */
export const appProblems = (scope: IConstruct, more: readonly Problem[] = []): AppValidationError => {
  recordProblems(scope, more);
  return new AppValidationError(recorded.get(scope.node.root) ?? []);
};

/**
 * Records `problems` of `scope` for the app's synth to fail with; the same problem twice is kept once. A
 * construct outside any stack has no synth of its own to fail, so its problems are thrown at once.
 */
export const recordProblems = (scope: IConstruct, problems: readonly Problem[]): void => {
  if (problems.length === 0) return;
  const all = recorded.get(scope.node.root) ?? [];
  recorded.set(scope.node.root, all);
  const path = scope.node.path;
  for (const { prop, says } of problems) {
    if (!all.some((p) => p.path === path && p.prop === prop && p.says === says)) all.push({ path, prop, says });
  }
  if (!gate(scope)) throw new AppValidationError(all);
};

/**
 * Records at synth what `check` finds of `scope`, once the whole app is built: a rule over constructs
 * declared in any order (a retired template and its instances, the objects an object follows).
 */
export const checkAtSynth = (scope: IConstruct, check: () => readonly Problem[]): void => {
  const checks = atSynth.get(scope.node.root) ?? [];
  atSynth.set(scope.node.root, checks);
  checks.push(() => recordProblems(scope, check()));
  gate(scope);
};

/**
 * Whether `scope`'s app has problems, its checks at synth run first (again at each synth: constructs may
 * be added between two): then its synth fails, and no record may be written.
 */
export const hasProblems = (scope: IConstruct): boolean => {
  const root = scope.node.root;
  for (const check of atSynth.get(root) ?? []) check();
  return (recorded.get(root)?.length ?? 0) > 0;
};

/** Marks `scope` as having built nothing: a construct naming it builds nothing either, and says nothing of it. */
export const refuse = (scope: IConstruct): void => {
  refusedConstructs.add(scope);
};

/** Whether `value` is a construct that built nothing (its problems are recorded). */
export const isRefused = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && refusedConstructs.has(value);

/**
 * What a construct built, read by a member such as `object` or `target`; for a construct that built
 * nothing, an error naming it, with the app's problems so far, thrown at the app's code that read it.
 */
export const builtOr = <T>(scope: IConstruct, value: T | undefined): T => {
  if (value !== undefined) return value;
  const problems = describeAppProblems(recorded.get(scope.node.root) ?? []);
  throw new ValidationError(
    scope.node.path,
    `built nothing to read, for its props or a construct it names:\n${problems}`,
  );
};
