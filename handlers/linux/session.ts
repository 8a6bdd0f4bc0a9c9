/**
 * What a Linux kind works with, apart from the domain that makes it: the kinds import this, the
 * domain imports the kinds, and neither loops back through the other.
 */
import type { Remote } from '../../src/linux/ssh';
import type { SshTarget } from '../../src/linux/target';

/** A connected host: the remote shell and the target it was reached with. */
export interface HostSession {
  readonly remote: Remote;
  readonly target: SshTarget;
  /** `host:port`, for messages. */
  readonly host: string;
}
