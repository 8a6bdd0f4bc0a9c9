/**
 * What a plan read of a metric server's section, which its apply must still find before it writes: a field edited on
 * the cluster between the plan and the apply was overwritten (or, one the plan read in sync, written) though the
 * plan never named it. The plan's reading travels as the server's basis (Reading.basis); the apply compares it with
 * its own read, made just before its write, and refuses the server when they differ.
 */
import { canonicalJson, digestOf } from '../core/canonical';
import { HandlerError } from '../core/errors';
import { notAsPlanned } from '../core/not-as-planned';
import { decodeBase64Json } from './metric-fields';
import {
  liveValue,
  type LiveSection,
  type MetricServerSecrets,
  type MetricServerSpec,
  otherTypeOf,
} from './metric-server';

const ABSENT = 'section absent';
const READ = 'section read ';
/** Kept out of the digest: the token is write-only (a GET never holds it) and PVE's `digest` is never compared. */
const LEFT_OUT = new Set(['token', 'digest', 'otel-headers']);

/**
 * A section as a digest of what PVE answered, and one of another type as absent: it is not this object, the apply's
 * create fails while it holds the id, and a type change removes the stack's own first (its lifecycle's replacement,
 * which the plan names) before the apply creates the new one. 16 hex digits keep a thousand servers' basis far
 * under Linux's 128 KiB per environment string. The otel headers are secret, so only how they stand counts
 * (headersStanding), never a value derived from them.
 */
export const metricServerBasis = (
  spec: MetricServerSpec,
  live: LiveSection | undefined,
  secrets: MetricServerSecrets,
): string => {
  if (live === undefined || otherTypeOf(spec, live) !== undefined) return ABSENT;
  const fields = Object.fromEntries(Object.entries(live).filter(([key]) => !LEFT_OUT.has(key)));
  return `${READ}${digestOf({ fields, headers: headersStanding(live, secrets) }).slice(0, 16)}`;
};

/**
 * The otel headers as unset, set (none declared: the apply clears them, whatever they hold), the declared ones, or
 * others. Any digest of their text in the state could be tested offline against a guessed token (an HMAC keyed by
 * the declared headers too, when both are the same), so a change between plan and apply from one undeclared value
 * to another refuses nothing: the apply writes the declared ones over either, as the plan said.
 */
const headersStanding = (live: LiveSection, secrets: MetricServerSecrets): string => {
  const have = liveValue('base64-json', live['otel-headers']);
  if (have === null) return 'unset';
  if (secrets.otelHeaders === undefined) return 'set';
  return canonicalJson(have) === canonicalJson(decodeBase64Json(secrets.otelHeaders)) ? 'declared' : 'other';
};

/**
 * Why the apply must not write the server: its section reads now (`live`) otherwise than the plan read it
 * (`planned`). Undefined when they agree.
 */
export const metricServerMoved = (
  spec: MetricServerSpec,
  planned: string,
  live: LiveSection | undefined,
  secrets: MetricServerSecrets,
): HandlerError | undefined => {
  const now = metricServerBasis(spec, live, secrets);
  if (now === planned) return undefined;
  const moved =
    planned === ABSENT
      ? 'it was created after the plan read it absent, so this apply would write over what its maker set'
      : now === ABSENT
        ? 'it was deleted (or its id taken by a section of another type) after the plan read it, so this apply ' +
          'would create it'
        : 'it was changed after the plan read it (a field of its section, or its otel headers, or the declared ' +
          'headers), so this apply would write over that change';
  return notAsPlanned(`Metric server "${spec.id}"`, moved);
};
