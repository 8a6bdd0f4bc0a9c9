/**
 * The two error shapes of the library: a synth-time `ValidationError` that names the construct,
 * and a run-time `HandlerError` whose message is the one line Terraform shows under the failure.
 */

/** Bad construct input, caught at synth: `<Construct path>: <prop> must be <rule>, got <value>`. */
export class ValidationError extends Error {
  constructor(constructPath: string, message: string) {
    super(`${constructPath}: ${message}`);
    this.name = 'ValidationError';
  }
}

/**
 * A handler failure: `title` says what happened, `detail` what must hold and how to fix it, and
 * `context` labelled facts (Endpoint:, Host:, Status:) printed after it.
 */
export class HandlerError extends Error {
  constructor(
    readonly title: string,
    readonly detail: string,
    readonly context: Readonly<Record<string, string>> = {},
  ) {
    super(`${title}: ${detail}`);
    this.name = 'HandlerError';
  }

  /** One line for Terraform's diagnostic, labelled context appended. */
  oneLine(): string {
    const facts = Object.entries(this.context).map(([label, value]) => `${label}: ${value}`);
    return [this.message, ...facts].join('; ');
  }
}

/**
 * Renders a value for an error message: strings quoted, everything else as JSON. A value JSON cannot
 * render (a construct passed where a string belongs is circular) is named by its class instead.
 */
export const show = (value: unknown): string => {
  if (typeof value === 'string') return `"${value}"`;
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return `a ${(value as object).constructor?.name ?? typeof value}`;
  }
};
