/**
 * A Repo's https clone Secret as a plan reads it and its apply must still find it: whether that Secret exists decides
 * spec.secretRef (wantedSecretRef), so one deleted or created between the plan and the apply made the apply drop or
 * add a secretRef the plan never named. The plan's reading travels to the apply (Reading.basis), which refuses the
 * Repo, writing nothing, when its own reading differs. A plan line says when the Secret is missing.
 */
import { HandlerError } from '../core/errors';
import { notAsPlanned } from '../core/not-as-planned';
import { credentialSecretFor, matchCredential, type RepoSpec } from './kube-repo';

/** The https clone Secret the spec names, or undefined for an ssh url, a url that needs none, or no match. */
export const cloneSecretOf = (spec: RepoSpec): string | undefined => {
  const cred = credentialSecretFor(spec.url, matchCredential(spec.identity, spec.credentials));
  return cred?.kind === 'https' ? cred.secret : undefined;
};

/** What a read of the clone Secret says, as the plan's basis (Reading.basis); none when the spec names none. */
export const cloneSecretBasis = (spec: RepoSpec, exists: (secret: string) => boolean): string | undefined => {
  const secret = cloneSecretOf(spec);
  if (secret === undefined) return undefined;
  return `clone Secret ${spec.namespace}/${secret} ${exists(secret) ? 'exists' : 'is absent'}`;
};

/**
 * What a plan says of a Repo whose clone Secret does not exist, beside its diff: the Repo is written without
 * spec.secretRef though its construct names the Secret (a create said `absent` alone).
 */
export const cloneSecretMissing = (spec: RepoSpec, exists: (secret: string) => boolean): string | undefined => {
  const secret = cloneSecretOf(spec);
  if (secret === undefined || exists(secret)) return undefined;
  const which = `its clone Secret ${spec.namespace}/${secret}`;
  return `${which} does not exist, so the Repo states no spec.secretRef until it does`;
};

/**
 * Why the apply must not write the Repo `name`: the plan read the clone Secret otherwise (`planned`, the plan's
 * basis) than the apply does now (`present`). Undefined when they agree, or when no plan's reading came with the
 * apply (a run by hand, or an earlier version's synth).
 */
export const cloneSecretMoved = (
  name: string,
  spec: RepoSpec,
  planned: string | undefined,
  present: boolean,
): HandlerError | undefined => {
  const secret = cloneSecretOf(spec);
  if (planned === undefined || secret === undefined) return undefined;
  if (planned === cloneSecretBasis(spec, () => present)) return undefined;
  const which = `its clone Secret ${spec.namespace}/${secret}`;
  const moved = present
    ? `${which} was created after the plan read it absent, so this apply would write spec.secretRef ` +
      `${JSON.stringify(secret)}`
    : `${which} was deleted after the plan read it, so this apply would write the Repo without spec.secretRef`;
  return notAsPlanned(name, moved, undefined, 'the Secret');
};
