/**
 * The Kubernetes API's error answers as plain data: its Status (code, reason, message) kept in one line, and the
 * rule that tells a missing object (404 whose Status names it) from a type the server does not serve (any other
 * 404: plain "404 page not found", or a Status with empty details), which client-go treats alike.
 */
import { HandlerError } from '../core/errors';
import { asObject, describeBody, parseJson } from '../core/http/body';
import type { HttpAnswer } from '../core/http/request';

/** What an error answer says, from its Status when it has one, else from the HTTP line and body. */
export interface ApiStatus {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  /** `details.name` of the Status: set when the answer is about that object. */
  readonly name?: string;
  /** `details.kind` of the Status: the resource `name` is of (`namespaces` for a missing namespace). */
  readonly kind?: string;
}

/** The Status of an answer of any status code, or one made from the HTTP line when the body is not a Status. */
export const statusOf = (answer: HttpAnswer): ApiStatus => {
  const parsed = parseJson(answer.body);
  const body = parsed.ok ? asObject(parsed.value) : undefined;
  if (body?.kind !== 'Status') return { code: answer.status, reason: answer.reason, message: describeBody(answer) };
  return statusFromObject(body, answer.status);
};

/** A Status object (an error answer's body, or an ERROR watch event's object). */
export const statusFromObject = (body: Readonly<Record<string, unknown>>, fallbackCode: number): ApiStatus => {
  const details = asObject(body.details);
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    code: typeof body.code === 'number' ? body.code : fallbackCode,
    reason: text(body.reason),
    message: text(body.message).replace(/\s+/g, ' ').trim(),
    ...(typeof details?.name === 'string' && details.name !== '' ? { name: details.name } : {}),
    ...(typeof details?.kind === 'string' && details.kind !== '' ? { kind: details.kind } : {}),
  };
};

/** A 404 about the object `name` itself, not about its type or path. */
export const isObjectNotFound = (status: ApiStatus, name: string): boolean =>
  status.code === 404 && status.reason === 'NotFound' && status.name === name;

/**
 * A 404 about the namespace `namespace`: what a create in a namespace the cluster lacks answers (`namespaces "x" not
 * found`), where a list there answers 200 with no items.
 */
export const isNamespaceNotFound = (status: ApiStatus, namespace: string): boolean =>
  status.code === 404 && status.reason === 'NotFound' && status.kind === 'namespaces' && status.name === namespace;

/** An error answer of the API, its Status in the one line Terraform shows. */
export class KubeApiError extends HandlerError {
  constructor(
    readonly status: ApiStatus,
    readonly request: string,
    readonly server: string,
    hint = '',
  ) {
    const reason = status.reason === '' ? '' : ` ${status.reason}`;
    super(`Kubernetes API answered ${status.code}${reason}`, `${status.message}${hint}`, {
      Request: request,
      Server: server,
    });
  }
}

/** What to do about a status, appended to its message. */
export const hintFor = (code: number, origin: string): string => {
  if (code === 401) return `; the credential of ${origin} was refused: renew it`;
  if (code === 403) return `; grant the verb to the identity of ${origin} (see the README's RBAC table)`;
  return '';
};
