/**
 * The clone url a Repo may state, one rule for synth and for the handler boundary: https, ssh or scp-like, and no
 * credential in it, nor a query or fragment, where a token also rides. Without it `not a url` or `ftp://...` was
 * created on the cluster, and a token in the url (`https://oauth2:TOKEN@...`, `...git?private_token=TOKEN`) was
 * stored in the Terraform state and the Repo. A message never shows the credential.
 */
import { show } from '../core/errors';
import type { Rule } from '../core/rules';

/** The forms git clones over that the node caches accept, in the words a message uses. */
export const CLONE_URL_RULE = 'a clone url: https://host/path, ssh://[user@]host/path or user@host:path';
export const NO_CREDENTIAL_RULE =
  'free of credentials (a clone Secret named in credentials[].https or .ssh carries them)';
/**
 * Git appends its own path to a url, which then lands in the query or is dropped with the fragment (measured, git
 * 2.39: `GET /me/c.git?private_token=T/info/refs&service=git-upload-pack`; `GET /me/d.git` for `d.git#T`), and no
 * host's clone url has either (Azure DevOps' is `https://dev.azure.com/ORG/PROJECT/_git/REPO`): one there is a token.
 */
export const NO_QUERY_RULE =
  'free of a query (?) and a fragment (#): git clones a url without them, and a token there belongs in the ' +
  'clone Secret credentials[].https names';
export const MAX_URL_LENGTH = 4096;

/**
 * scp-like `user@host:path`: no scheme, the part before `:` is not a path, and `://` does not follow. The one
 * pattern: a url this rule refuses is not read as ssh by `schemeOf` either (a host holds no `@`).
 */
export const SCP_LIKE = /^[^/:@\s]+@[^/:@\s]+:(?!\/\/)\S+$/;
const SCHEME = /^(https|ssh):\/\//i;
/** Whitespace and control characters: never part of a url git is given. */
const UNPRINTABLE = /[\s\u0000-\u001f\u007f]/;

/** The rule `url` breaks, or undefined when a Repo may state it. */
export const cloneUrlProblem = (url: string): string | undefined => {
  if (url.length === 0 || url.length > MAX_URL_LENGTH || UNPRINTABLE.test(url)) return CLONE_URL_RULE;
  if (SCP_LIKE.test(url)) return queryProblem(url);
  if (!SCHEME.test(url)) return CLONE_URL_RULE;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return CLONE_URL_RULE;
  }
  if (parsed.hostname === '' || parsed.pathname.replace(/\//g, '') === '') return CLONE_URL_RULE;
  return credentialProblem(url);
};

/** The clone url rule over any value a prop or a spec holds. */
export const cloneUrl: Rule<string> = (url) => (typeof url === 'string' ? cloneUrlProblem(url) : CLONE_URL_RULE);

/**
 * The credential rule alone, for a url only partly known at synth (a Terraform value in it): a query or fragment, an
 * https url with any user part (a token is often the user: `https://TOKEN@host`), or an ssh url with a password.
 */
export const credentialProblem = (url: string): string | undefined => queryProblem(url) ?? userProblem(url);

/** `?` or `#` anywhere: in an scp-like path too, which git would read as part of the repository's name. */
export const hasQuery = (text: string): boolean => /[?#]/.test(text);

const queryProblem = (url: string): string | undefined => (hasQuery(url) ? NO_QUERY_RULE : undefined);

const userProblem = (url: string): string | undefined => {
  const authority = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/i.exec(url);
  const userinfo = authority?.[2]?.includes('@') ? authority[2].slice(0, authority[2].lastIndexOf('@')) : undefined;
  if (userinfo === undefined) return undefined;
  return authority?.[1]?.toLowerCase() === 'ssh' && !userinfo.includes(':') ? undefined : NO_CREDENTIAL_RULE;
};

/** `url` with its query and fragment hidden: a token also rides in a query (`?private_token=...`). */
export const hideQuery = (url: string): string => {
  const tail = url.search(/[?#]/);
  return tail < 0 ? url : `${url.slice(0, tail + 1)}***`;
};

/** `url` up to its query or fragment. */
const withoutQuery = (url: string): string => url.replace(/[?#][\s\S]*$/, '');

/** `url` for a message: its query hidden, then everything up to its last `@`, so no user, token or password shows. */
export const redactUrl = (url: string): string => {
  const base = hideQuery(url);
  const at = base.lastIndexOf('@');
  if (at < 0) return base;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(base)?.[0] ?? '';
  return at < scheme.length ? base : `${scheme}***${base.slice(at)}`;
};

/**
 * A url the cluster answered, as a plan, the state or an error carries it: a Repo made by hand or by a hostile
 * server may hold the token the declared rule refuses. One the rule accepts but for its query keeps its ssh user,
 * its query hidden; any other is redacted. A value that is not text is shown by its kind alone.
 */
export const liveUrlShown = (url: unknown): unknown => {
  if (typeof url === 'string')
    return cloneUrlProblem(withoutQuery(url)) === undefined ? hideQuery(url) : redactUrl(url);
  return typeof url === 'object' && url !== null ? `(${Array.isArray(url) ? 'a list' : 'an object'})` : url;
};

/** A url as a message shows it: redacted, and cut where a long one would flood the message. */
export const shownUrl = (url: unknown): string =>
  typeof url === 'string' ? show(redactUrl(url).slice(0, 200)) : show(url);
