// Unit test of a fetch ask's plan reading: in sync only when the Sandbox shows a fetch at or after the last ask made
// for the current trigger (a landing for an older trigger must not hide a changed one); otherwise words.
import type { Sandbox } from '../../../../src/kube/fetch-verdict';
import { askedAnnotation } from '../../../../src/kube/names';
import {
  askPatch,
  type LiveSandbox,
  readFetch,
  triggerAnnotation,
  triggerDigest,
} from '../../../../src/kube/kube-repo-fetch';
import { FETCH_SPEC as spec } from './kube-repo-fetch-fixtures';

const ASKED = '2026-05-01T10:00:05Z';
const asked = (trigger: string, entry: object): Sandbox => ({
  metadata: { annotations: { [triggerAnnotation('site')]: `${ASKED} ${triggerDigest(trigger)}` } },
  spec: { repos: [{ key: 'site' }, { key: 'docs' }] },
  status: { repos: [{ key: 'site', asked: ASKED, ...entry }] },
});
const landed = { fetched: '2026-05-01T10:00:09Z' };

test.each<[string, LiveSandbox, boolean, string]>([
  ['a landing after the ask for this trigger is in sync', asked('v1.2.0', landed), true, 'in sync'],
  [
    'a landing for another trigger is drift',
    asked('v1.1.0', landed),
    false,
    `the trigger changed since the last ask (${ASKED})`,
  ],
  [
    'a Sandbox never asked is drift',
    { spec: { repos: [{ key: 'site' }] } },
    false,
    'no fetch of repo "site" asked for this trigger yet',
  ],
  [
    'an ask not answered yet is drift',
    asked('v1.2.0', {}),
    false,
    `asked at ${ASKED}, no fetch of repo "site" has landed since`,
  ],
  [
    'a stale answer is drift in git’s words',
    asked('v1.2.0', { error: 'fatal: could not read', fetched: '2026-05-01T09:00:00Z' }),
    false,
    `repo "site" is stale as of 2026-05-01T09:00:00Z: fatal: could not read (asked at ${ASKED})`,
  ],
  [
    'a key the Sandbox does not mount is named',
    { spec: { repos: [{ key: 'docs' }] } },
    false,
    'Sandbox jr2/agent-1 does not mount repo "site" (it mounts "docs"), so the apply refuses it; add it to the ' +
      "Sandbox's spec.repos, or fix key",
  ],
  [
    'an absent Sandbox',
    'absent',
    false,
    'absent: Sandbox jr2/agent-1 does not exist, so the apply refuses it; create it, or set sandbox to one on ' +
      'Kubernetes cluster home',
  ],
  [
    'a cluster without the Sandbox type',
    'type-missing',
    false,
    'absent: the Sandbox type (sandboxes.core.jr2.dev) is not installed on Kubernetes cluster home, so the apply ' +
      'refuses it; install its CRD first',
  ],
])('%s', (_, live, inSync, summary) => {
  expect(readFetch(spec, live, 'Kubernetes cluster home')).toMatchObject({ inSync, summary });
});

test('drift names the field: the trigger digest, or the landing wanted', () => {
  expect(readFetch(spec, asked('v1.1.0', landed), 'c').diff).toEqual({
    trigger: { live: triggerDigest('v1.1.0'), want: triggerDigest('v1.2.0') },
  });
  expect(readFetch(spec, asked('v1.2.0', {}), 'c').diff).toEqual({
    fetched: { live: null, want: `at or after ${ASKED}` },
  });
});

test('the ask patch raises the ask and its record, and nothing else', () => {
  expect(askPatch(spec, ASKED)).toEqual({
    metadata: {
      annotations: {
        [askedAnnotation('site')]: ASKED,
        [triggerAnnotation('site')]: `${ASKED} ${triggerDigest('v1.2.0')}`,
      },
    },
  });
});
