/**
 * The connection to a Proxmox VE cluster. It holds where to connect and how to trust the members,
 * and only the names of the variables that hold the API tokens (one, or a read one beside the
 * write one): a stack can never leak a token.
 */
import { Construct } from 'constructs';
import { withDefaults } from '../../src/core/definition';
import type { MintSettings } from '../../src/pve/mint-settings';
import { CLUSTER_PROPS, clusterRules, type PveTarget } from '../../src/pve/target';
import { validateProps } from '../core/validate';
import { addressName } from '../core/object-address';
import { builtOr } from '../core/problems';
import { noteTarget } from '../core/tombstones';

export interface ProxmoxClusterProps {
  /**
   * API endpoints of the cluster members, in order of preference, e.g. `https://n2:8006`.
   *
   * A request goes to the member that last answered, then the others in this order. It moves on
   * when the request never reached a server (refused, DNS, TLS handshake, pin mismatch), and a
   * read also when a member took it but did not answer in time; an HTTP error is PVE's answer,
   * a redirect is refused, and a write is never sent twice. A plain `http://` endpoint would send
   * the API token in clear, so it needs `insecure: true`.
   */
  readonly endpoints: string[];
  /**
   * Environment variable holding the API token, `USER@REALM!TOKENID=SECRET`.
   *
   * @default "PROXMOX_VE_API_TOKEN"
   */
  readonly tokenEnv?: string;
  /**
   * Environment variable holding a read-only API token, which plans and reads use; `tokenEnv`'s
   * token then serves only applies, destroys and the tasks they start, so a plan (in a pull
   * request's pipeline, say) runs with this variable alone set. README, Least privilege, lists the
   * privileges each needs.
   *
   * @default - tokenEnv: one token reads and writes
   */
  readonly readTokenEnv?: string;
  /**
   * Mint a PVE API token per handler run: the role's token (`readTokenEnv` for a plan, `tokenEnv`
   * for an apply) then only creates, with an expiry, a token of the role's user (`readUser`,
   * `provisionUser`) that the run makes every request with, the poll of a task it started
   * included, and removes it when the run ends, success or failure. The bootstrap token needs
   * User.Modify on a group holding that user (README, Least privilege, lists PVE's rules); the
   * new token has its user's rights (`privsep=0`).
   *
   * @default - no minting: the runs use the tokens in the variables
   */
  readonly mint?: MintSettings;
  /**
   * PEM file of the CA that signed the members' certificates, read when a handler runs.
   *
   * @default - the system's trusted CAs
   */
  readonly caFile?: string;
  /**
   * SHA-256 certificate fingerprints, keyed by endpoint (`AA:BB:...`, as the PVE web UI shows it).
   * A pinned member is trusted by its certificate alone, self-signed or not.
   *
   * @default - no pins
   */
  readonly fingerprints?: Record<string, string>;
  /**
   * Accept any certificate, and allow plain `http://` endpoints. Only for a lab: it lets anyone
   * on the path read the token.
   *
   * @default false
   */
  readonly insecure?: boolean;
  /**
   * How long one request may take, connecting, failover and the whole answer included. A read
   * shares it between the members left to try, so a member that never answers costs only its
   * share; a write that was sent keeps all that is left.
   *
   * @default 30
   */
  readonly timeoutSeconds?: number;
}

/**
 * A Proxmox VE cluster reached through its members' API endpoints; its API token stays in an
 * environment variable.
 */
export class ProxmoxCluster extends Construct {
  private settings?: PveTarget;

  /** The connection settings handlers receive; no secret in it. */
  get target(): PveTarget {
    return builtOr(this, this.settings);
  }

  constructor(scope: Construct, id: string, props: ProxmoxClusterProps) {
    super(scope, id);
    if (!validateProps(this, 'ProxmoxCluster', CLUSTER_PROPS, props, clusterRules)) return;
    // withDefaults has given tokenEnv its default: the target always names its variable.
    const { endpoints, tokenEnv, readTokenEnv, mint, caFile, fingerprints, insecure, timeoutSeconds } = withDefaults(
      CLUSTER_PROPS,
      props,
    ) as ProxmoxClusterProps & Pick<PveTarget, 'tokenEnv'>;
    const target = {
      endpoints: [...endpoints],
      tokenEnv,
      ...(readTokenEnv === undefined ? {} : { readTokenEnv }),
      ...(mint === undefined ? {} : { mint: { ...mint } }),
      ...(caFile === undefined ? {} : { caFile }),
      ...(fingerprints === undefined ? {} : { fingerprints: { ...fingerprints } }),
      ...(insecure ? { insecure: true } : {}),
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    };
    this.settings = target;
    noteTarget(this, addressName(this), { domain: 'pve', settings: { ...target } });
  }
}
