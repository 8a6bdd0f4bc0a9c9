/**
 * What a plan read of a Repo itself, which its apply must still find before it writes: the apply's restate (a merge
 * patch) overwrites the fields the stack owns, so a hand edit of one of them after the plan (spec.url, say) was
 * overwritten though the plan never named it. The plan's reading travels as the Repo's basis (Reading.basis) beside
 * its clone Secret's (clone-secret.ts); status, resourceVersion and the fields the stack leaves are not in it, so
 * the cache agent's status writes never refuse an apply.
 */
import { digestOf } from '../core/canonical';
import { HandlerError } from '../core/errors';
import { notAsPlanned } from '../core/not-as-planned';
import { cloneSecretBasis } from './clone-secret';
import { liveUrlShown } from './clone-url';
import type { LiveRepo, RepoSpec } from './kube-repo';
import { ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK, LABEL_REPO_BOUND } from './names';

/** The reading of a Repo the plan did not find. */
export const REPO_ABSENT = 'Repo absent';
const READ = 'Repo read ';
const SECRET = 'clone Secret ';

/**
 * The fields a restate writes, as read, by a digest, the url as the plan shows it (liveUrlShown): a live url may hold
 * a token (one written by hand), and a digest of it in the state could be tried offline against guessed tokens, so a
 * token's change alone is not in the reading (the restate writes the declared url over the token all the same).
 * 16 hex digits keep a thousand Repos' basis far under Linux's 128 KiB per environment string.
 */
export const repoReadingOf = (live: LiveRepo | undefined): string => {
  if (live === undefined) return REPO_ABSENT;
  const ref = live.spec?.secretRef;
  const owned = {
    url: liveUrlShown(live.spec?.url ?? null),
    secretRef: ref === undefined ? null : (ref.name ?? {}),
    bound: live.metadata?.labels?.[LABEL_REPO_BOUND] ?? null,
    identity: live.metadata?.annotations?.[ANNOTATION_REPO_IDENTITY] ?? null,
    stack: live.metadata?.annotations?.[ANNOTATION_REPO_STACK] ?? null,
  };
  return `${READ}${digestOf(owned).slice(0, 16)}`;
};

/** A Repo's basis: its own reading, then its clone Secret's when the spec names one. */
export const repoBasis = (spec: RepoSpec, live: LiveRepo | undefined, exists: (secret: string) => boolean): string =>
  [repoReadingOf(live), cloneSecretBasis(spec, exists)].filter((part) => part !== undefined).join('; ');

/** The plan's basis in its parts; a part it lacks is one that plan did not read (a basis of an earlier version). */
export const plannedParts = (basis: string | undefined): { readonly repo?: string; readonly secret?: string } => {
  const parts = basis === undefined ? [] : basis.split('; ');
  const repo = parts.find((part) => part === REPO_ABSENT || part.startsWith(READ));
  const secret = parts.find((part) => part.startsWith(SECRET));
  return { ...(repo !== undefined && { repo }), ...(secret !== undefined && { secret }) };
};

/**
 * Why the apply must not write the Repo `name`: what it reads now (`live`) is not what the plan read (`planned`,
 * that plan's Repo part). Undefined when they agree.
 */
export const repoMoved = (name: string, planned: string, live: LiveRepo | undefined): HandlerError | undefined => {
  const now = repoReadingOf(live);
  if (now === planned) return undefined;
  const moved =
    planned === REPO_ABSENT
      ? 'it was created after the plan read it absent, so this apply would restate spec.url, spec.secretRef and ' +
        "the stack's label and annotations over what its maker wrote"
      : now === REPO_ABSENT
        ? 'it was deleted after the plan read it, so this apply would create it'
        : 'it was changed after the plan read it (spec.url, spec.secretRef, or a label or annotation the stack ' +
          'owns), so this apply would overwrite that change';
  return notAsPlanned(name, moved, undefined, 'the Repo');
};
