/**
 * The fetch ask's record names the stack that asked (issue 27 item 4): the pure rules. An ask for the same trigger
 * is shared (never another stack's: its fetch answers, or it is waited on while pending within the budget); one
 * for another trigger than another stack's last names that stack (markedBy); a record an earlier version wrote
 * names no stack.
 */
import { askStamp } from '../../../../src/kube/fetch-verdict';
import {
  askedByFor,
  askPatch,
  sharedAsk,
  triggerAnnotation,
  triggerDigest,
} from '../../../../src/kube/kube-repo-fetch';
import { askedAnnotation } from '../../../../src/kube/names';
import { FETCH_SPEC } from './kube-repo-fetch-fixtures';

const NOW = Date.parse('2026-12-04T21:00:10Z');
const ASKED = askStamp(NOW - 5000);
const sandbox = (recordValue: string, status: object = {}, asked = ASKED) => ({
  metadata: {
    annotations: { [askedAnnotation(FETCH_SPEC.key)]: asked, [triggerAnnotation(FETCH_SPEC.key)]: recordValue },
  },
  spec: { repos: [{ key: FETCH_SPEC.key }] },
  status,
});
const digest = triggerDigest(FETCH_SPEC.trigger);

test('the ask records who asked, and carries the version it is conditioned on', () => {
  expect(askPatch(FETCH_SPEC, ASKED, 'blue', '42').metadata).toEqual({
    annotations: {
      [askedAnnotation(FETCH_SPEC.key)]: ASKED,
      [triggerAnnotation(FETCH_SPEC.key)]: `${ASKED} ${digest} blue`,
    },
    resourceVersion: '42',
  });
  expect(askPatch(FETCH_SPEC, ASKED).metadata.annotations[triggerAnnotation(FETCH_SPEC.key)]).toBe(
    `${ASKED} ${digest}`,
  );
});

test("another stack's ask for another trigger names it; the same trigger, or no stack, names none", () => {
  const other = triggerDigest('another');
  expect(askedByFor(FETCH_SPEC, sandbox(`${ASKED} ${other} blue`))).toBe('blue');
  expect(askedByFor(FETCH_SPEC, sandbox(`${ASKED} ${digest} blue`))).toBeUndefined();
  expect(askedByFor(FETCH_SPEC, sandbox(`${ASKED} ${other}`))).toBeUndefined();
  expect(askedByFor(FETCH_SPEC, 'absent')).toBeUndefined();
});

test('an ask for the same trigger, fetched or pending in the budget, is shared; a stale, old or other one not', () => {
  expect(sharedAsk(FETCH_SPEC, sandbox(`${ASKED} ${digest} blue`), NOW)).toEqual({
    asked: ASKED,
    digest,
    stack: 'blue',
  });
  expect(sharedAsk(FETCH_SPEC, sandbox(`${ASKED} ${digest}`), NOW)).toEqual({ asked: ASKED, digest });
  const landed = { repos: [{ key: FETCH_SPEC.key, asked: ASKED, fetched: askStamp(NOW) }] };
  expect(sharedAsk(FETCH_SPEC, sandbox(`${ASKED} ${digest} blue`, landed), NOW + 3_600_000)).toEqual({
    asked: ASKED,
    digest,
    stack: 'blue',
  });
  const failed = { repos: [{ key: FETCH_SPEC.key, asked: ASKED, attempted: askStamp(NOW), error: 'fatal: no' }] };
  expect(sharedAsk(FETCH_SPEC, sandbox(`${ASKED} ${digest} blue`, failed), NOW)).toBeUndefined();
  expect(
    sharedAsk(FETCH_SPEC, sandbox(`${ASKED} ${digest} blue`), NOW + FETCH_SPEC.budgetSeconds * 1000),
  ).toBeUndefined();
  expect(sharedAsk(FETCH_SPEC, sandbox(`${ASKED} ${triggerDigest('another')} blue`), NOW)).toBeUndefined();
  // Someone raised the ask annotation since (an in-pod ask): the record's ask is not the one the agent answers.
  expect(sharedAsk(FETCH_SPEC, sandbox(`${ASKED} ${digest} blue`, {}, askStamp(NOW)), NOW)).toBeUndefined();
});
