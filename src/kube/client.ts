/**
 * A small Kubernetes JSON client over the shared HTTP core: JSON GET/POST, merge PATCH, a metadata-only read that
 * never brings a Secret's data into the handler, and every error answer one line with the API's Status. A write is
 * never sent twice, no redirect is followed, every call is bounded, and the credential is fetched per request so a
 * rotated tokenFile or an expired exec token is picked up.
 */
import { HandlerError } from '../core/errors';
import { asObject, isRedirect, parseJson, redirectTarget, describeBody } from '../core/http/body';
import type { TlsRule } from '../core/http/connect';
import { Members, type MembersOptions } from '../core/http/members';
import type { HttpAnswer } from '../core/http/request';
import { type CredentialPorts, currentCredential, type KubeConnection, nodeCredentialPorts } from './connection';
import { hintFor, isObjectNotFound, KubeApiError, statusOf } from './status';
import { isRecord } from '../core/records';

export type KubeObject = Readonly<Record<string, unknown>> & {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
};

const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';

/** Whether `value` is an object whose metadata, when there, has the shape `KubeObject` states. */
export const isKubeObject = (value: unknown): value is KubeObject => {
  if (!isRecord(value)) return false;
  const { metadata } = value;
  if (metadata === undefined) return true;
  return isRecord(metadata) && isOptionalString(metadata.name) && isOptionalString(metadata.resourceVersion);
};

/** A list answer: its items and the resourceVersion a watch starts from. */
export interface KubeList {
  readonly items: readonly KubeObject[];
  readonly resourceVersion: string;
}

/** One HTTP answer of the API, parsed: what `send` gives callers that decide on the status themselves. */
export interface KubeAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly raw: HttpAnswer;
}

/** How one call is made: its body and media types, and a deadline shorter than the client's own. */
export interface CallOptions {
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
  /** Caps this call below the client's timeout, e.g. at what is left of a wait's budget. */
  readonly timeoutMs?: number;
}

/** A request that got no answer (refused, reset, cut by its deadline). `sent`: it may have been applied. */
export class KubeUnreachable extends HandlerError {
  constructor(
    readonly reason: string,
    readonly sent: boolean,
    detail: string,
    context: Readonly<Record<string, string>>,
  ) {
    super('Kubernetes API unreachable', detail, context);
  }
}

export interface KubeClientOptions {
  /** The deadline of one call. @default 30 s */
  readonly timeoutMs?: number;
  readonly credentials?: CredentialPorts;
  readonly transport?: Pick<MembersOptions, 'open' | 'maxBodyBytes'>;
}

const JSON_TYPE = 'application/json';
export const MERGE_PATCH = 'application/merge-patch+json';
/** Asks for the object's metadata only (PartialObjectMetadata): a Secret's data never crosses the wire. */
export const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

export class KubeClient {
  private members: Members | undefined;

  constructor(
    readonly connection: KubeConnection,
    private readonly options: KubeClientOptions = {},
  ) {}

  /** Sends one request; any HTTP status is returned, only a transport failure or a redirect throws. */
  send(method: string, path: string, body?: unknown, contentType = JSON_TYPE, accept = JSON_TYPE) {
    return this.call(method, path, { body, contentType, accept });
  }

  /** `send` with its options named; a transport failure throws `KubeUnreachable`. */
  async call(method: string, path: string, options: CallOptions = {}): Promise<KubeAnswer> {
    const { body, contentType = JSON_TYPE, accept = JSON_TYPE } = options;
    const credential = await currentCredential(this.connection, this.options.credentials ?? nodeCredentialPorts());
    const members = (this.members ??= this.open(credential.clientCert));
    const request = `${method} ${path.split('?')[0]}`;
    const timeoutMs = Math.max(1, Math.min(this.timeoutMs, options.timeoutMs ?? Infinity));
    const headers = {
      accept,
      ...(credential.token === undefined ? {} : { authorization: `Bearer ${credential.token}` }),
      ...(body === undefined ? {} : { 'content-type': contentType }),
    };
    const outcome = await members.send(
      { method, path: path.replace(/^\//, ''), headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
      timeoutMs,
    );
    if (!outcome.ok) {
      const failure = outcome.unknown ?? outcome.failures[0];
      const reason = failure?.reason ?? 'no server';
      const unknown =
        outcome.unknown === undefined ? '' : '; it was sent and may have been applied: check, then apply again';
      const why = `${request} failed: ${reason}${unknown}${this.identityHint(failure?.reason)}`;
      throw new KubeUnreachable(reason, outcome.unknown !== undefined, why, { Server: this.connection.server });
    }
    const { answer } = outcome;
    if (isRedirect(answer.status)) {
      throw new HandlerError(
        'Kubernetes API redirected',
        `${request} was answered ${answer.status} to ${redirectTarget(answer)}, not followed: ` +
          'point server at the API server itself, not a proxy or a login page',
        { Server: this.connection.server },
      );
    }
    const parsed = parseJson(answer.body);
    return { status: answer.status, body: parsed.ok ? parsed.value : undefined, raw: answer } satisfies KubeAnswer;
  }

  /** The object at `path`; any error status throws with its Status. */
  async get(path: string): Promise<KubeObject> {
    return this.expectObject('GET', path, await this.send('GET', path));
  }

  /** The object at `path`, or undefined when the API says that object (named `name`) does not exist. */
  async getOptional(path: string, name: string): Promise<KubeObject | undefined> {
    const answer = await this.send('GET', path);
    if (answer.status === 404 && isObjectNotFound(statusOf(answer.raw), name)) return undefined;
    return this.expectObject('GET', path, answer);
  }

  /** A collection's items and resourceVersion; a 404 here means the type is not served (reference §4). */
  async list(path: string, timeoutMs?: number): Promise<KubeList> {
    const answer = await this.call('GET', path, { timeoutMs });
    const list = this.expectObject('GET', path, answer);
    const items = Array.isArray(list.items) ? list.items.filter(isKubeObject) : [];
    const metadata = asObject(list.metadata);
    return { items, resourceVersion: typeof metadata?.resourceVersion === 'string' ? metadata.resourceVersion : '' };
  }

  /** A collection's objects by name, or `type-missing` when the server does not serve the type: a 404 on the
   * collection itself (reference §4), which a namespace without objects never answers. */
  async listByName(path: string): Promise<ReadonlyMap<string, KubeObject> | 'type-missing'> {
    const answer = await this.send('GET', path);
    if (answer.status === 404) return 'type-missing';
    const list = this.expectObject('GET', path, answer);
    const items = Array.isArray(list.items) ? list.items.filter(isKubeObject) : [];
    return new Map(items.map((item) => [String(item.metadata?.name), item]));
  }

  async post(path: string, body: KubeObject): Promise<KubeObject> {
    return this.expectObject('POST', path, await this.send('POST', path, body));
  }

  /** A JSON merge patch: maps merge, `null` deletes a key, arrays are replaced whole. */
  async mergePatch(path: string, patch: unknown): Promise<KubeObject> {
    return this.expectObject('PATCH', path, await this.send('PATCH', path, patch, MERGE_PATCH));
  }

  /** Whether the object exists, reading its metadata only (for Secrets: no data reaches this process). */
  async exists(path: string, name: string): Promise<boolean> {
    const answer = await this.send('GET', path, undefined, JSON_TYPE, METADATA_ONLY);
    if (answer.status === 404 && isObjectNotFound(statusOf(answer.raw), name)) return false;
    this.expectObject('GET', path, answer);
    return true;
  }

  /** The object of a 2xx answer, or the error its Status amounts to. */
  expectObject(method: string, path: string, answer: KubeAnswer): KubeObject {
    const request = `${method} ${path.split('?')[0]}`;
    if (answer.status < 200 || answer.status >= 300) throw this.error(answer.raw, request);
    const object = answer.body;
    if (isKubeObject(object)) return object;
    const what = isRecord(object)
      ? 'an object whose metadata has a name or resourceVersion not a string'
      : 'not a JSON object';
    throw new HandlerError(
      'Kubernetes API answer unreadable',
      `${request} answered ${answer.status} with ${describeBody(answer.raw)}, ${what}; ` +
        'check that server is a Kubernetes API server',
      { Server: this.connection.server },
    );
  }

  error(answer: HttpAnswer, request: string): KubeApiError {
    const status = statusOf(answer);
    return new KubeApiError(status, request, this.connection.server, hintFor(status.code, this.connection.origin));
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 30_000;
  }

  close(): void {
    this.members?.close();
    this.members = undefined;
  }

  /** For a certificate that does not carry the name it was checked against: which name that was, and the fix. */
  private identityHint(reason: string | undefined): string {
    if (reason === undefined || !/does not match certificate's altnames/.test(reason)) return '';
    const { tlsServerName, origin } = this.connection;
    if (tlsServerName !== undefined) {
      return `; the certificate does not carry tls-server-name ${tlsServerName} of ${origin}`;
    }
    const host = new URL(this.connection.server).hostname.replace(/^\[|\]$/g, '');
    return (
      `; the certificate does not carry ${host}: point server at a name it carries, ` +
      `or set tls-server-name to one in ${origin}`
    );
  }

  private open(clientCert: { certPem: Buffer; keyPem: Buffer } | undefined): Members {
    const { caPem, insecureSkipTlsVerify, tlsServerName } = this.connection;
    const tls: TlsRule = {
      ...(caPem === undefined ? {} : { ca: caPem }),
      ...(insecureSkipTlsVerify ? { insecure: true } : {}),
      ...(tlsServerName === undefined ? {} : { serverName: tlsServerName }),
      ...(clientCert === undefined ? {} : { cert: clientCert.certPem, key: clientCert.keyPem }),
    };
    return new Members([this.connection.server], {
      ...this.options.transport,
      timeoutMs: this.timeoutMs,
      tlsFor: () => tls,
    });
  }
}
