/**
 * The connection to a Proxmox VE cluster. It holds where to connect and how to trust the members,
 * and only the name of the variable that holds the API token: a stack can never leak the token.
 */
import { Construct } from 'constructs';
import { endpointProblem, isFingerprint } from '../../src/core/http/endpoint';
import { DEFAULT_TOKEN_ENV, type PveTarget } from '../../src/pve/target';
import { check, checkEnvName, checkRange } from '../core/validate';

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

export class ProxmoxCluster extends Construct {
  /** The connection settings handlers receive; no secret in it. */
  readonly target: PveTarget;

  constructor(scope: Construct, id: string, props: ProxmoxClusterProps) {
    super(scope, id);
    validate(this, props);
    this.target = {
      endpoints: [...props.endpoints],
      tokenEnv: props.tokenEnv ?? DEFAULT_TOKEN_ENV,
      ...(props.caFile === undefined ? {} : { caFile: props.caFile }),
      ...(props.fingerprints === undefined ? {} : { fingerprints: { ...props.fingerprints } }),
      ...(props.insecure ? { insecure: true } : {}),
      ...(props.timeoutSeconds === undefined ? {} : { timeoutSeconds: props.timeoutSeconds }),
    };
  }
}

const validate = (scope: Construct, props: ProxmoxClusterProps): void => {
  check(
    scope,
    Array.isArray(props.endpoints) && props.endpoints.length > 0,
    'endpoints',
    'a non-empty list',
    props.endpoints,
  );
  for (const endpoint of props.endpoints) {
    check(scope, isHttpUrl(endpoint), 'endpoints', 'http(s) URLs such as https://n1:8006', endpoint);
    const rule = 'https:// URLs unless insecure is true (a plain http:// endpoint sends the API token in clear)';
    check(scope, props.insecure === true || new URL(endpoint).protocol === 'https:', 'endpoints', rule, endpoint);
    const bare = endpointProblem(endpoint, true) === undefined;
    check(scope, bare, 'endpoints', 'URLs without user, password, query or fragment', endpoint);
  }
  check(
    scope,
    new Set(props.endpoints).size === props.endpoints.length,
    'endpoints',
    'free of duplicates',
    props.endpoints,
  );
  checkEnvName(scope, 'tokenEnv', props.tokenEnv);
  for (const [endpoint, fingerprint] of Object.entries(props.fingerprints ?? {})) {
    check(scope, props.endpoints.includes(endpoint), 'fingerprints', `keyed by one of the endpoints`, endpoint);
    const rule = 'a SHA-256 fingerprint (32 hex bytes, colons optional)';
    check(scope, isFingerprint(fingerprint), `fingerprints["${endpoint}"]`, rule, fingerprint);
  }
  const trusted = props.caFile !== undefined || props.fingerprints !== undefined;
  check(
    scope,
    !(trusted && props.insecure),
    'insecure',
    'left unset when caFile or fingerprints is given',
    props.insecure,
  );
  checkRange(scope, 'timeoutSeconds', props.timeoutSeconds, 1, 3600);
};

const isHttpUrl = (value: unknown): boolean => {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
