// status.cfg and /etc/pve/priv/metricserver/<id>.pw in memory, with the handlers' die texts, so
// create/update/delete semantics (write-only token, delete lists, digest, the target's test) match PVE 9.2.11.
// Source: pve-api.md A1; [PM] API2/Cluster/MetricServer.pm, Status/InfluxDB.pm hooks.
import { createHash } from 'node:crypto';

import { die, PveError } from './envelope';
import { connectionRefusal, type TargetFault, targetKey } from './metric-reach';
import { TYPE_OPTIONS, isMetricType, keepsToken, type MetricType } from './metric-schema';
import { splitList, type Value } from './validate';

export type Section = Record<string, Value>;

// SectionConfig::lookup croaks without a newline, so Perl appends the caller's location; the
// line number is the one observed on a 9.x node by another client project and may drift.
const CROAK_UNDEFINED_TYPE =
  'cannot lookup undefined type! at /usr/share/perl5/PVE/API2/Cluster/MetricServer.pm line 295.';

// Perl truthiness: '' and '0' are false, which is how `if ($delete)` and the digest check read.
const perlTrue = (value: Value | undefined): value is Value =>
  value !== undefined && value !== '' && value !== '0' && value !== 0;

/** SectionConfig check_config: keys must be options of the type; create needs the required ones. */
const checkConfig = (type: MetricType, values: Section, create: boolean): Section => {
  const options = TYPE_OPTIONS[type];
  for (const [key, value] of Object.entries(values)) {
    if (!Object.hasOwn(options, key)) throw die(`unexpected property '${key}'`);
    if (/[\n\r]/.test(String(value))) throw die('property contains a line feed');
  }
  if (create) {
    for (const [key, rule] of Object.entries(options)) {
      if (!rule.optional && values[key] === undefined) {
        throw die(`missing value for required option '${key}'`);
      }
    }
  }
  return { type, ...values };
};

/**
 * A section as the next read of status.cfg gives it back: format_config_line writes `\t<key> <value>` (nothing
 * for ''), and parse_config reads `^\s+(\S+)(\s+(.*\S))?\s*$`, so a text loses its outer whitespace and one of
 * whitespace alone is dropped (check_value dies on its undefined value). Numbers read back as numbers.
 * Source: [PC] f665029 src/PVE/SectionConfig.pm:1485 (parse_config), 1662 (format_config_line).
 */
const asStored = (section: Section): Section => {
  const stored: Section = {};
  for (const [key, value] of Object.entries(section)) {
    if (typeof value === 'number' || key === 'type') stored[key] = value;
    else if (value !== '') {
      const read = /^\s+\S+(\s+(.*\S))?\s*$/.exec(`\t${key} ${value}`)?.[2];
      if (read !== undefined) stored[key] = read;
    }
  }
  return stored;
};

export class MetricStore {
  private readonly sections = new Map<string, Section>();
  private readonly tokens = new Map<string, string>();
  private readonly faults = new Map<string, TargetFault>();

  /** SHA1 of a deterministic rendering of the whole file, as PVE hashes the raw status.cfg. */
  digest(): string {
    let raw = '';
    for (const [id, section] of this.sections) {
      raw += `${section.type}: ${id}\n`;
      for (const key of Object.keys(section)
        .filter((k) => k !== 'type')
        .sort()) {
        raw += `\t${key} ${section[key]}\n`;
      }
      raw += '\n';
    }
    return createHash('sha1').update(raw).digest('hex');
  }

  /** GET collection: `{id, disable (0 when unset), type, server, port}` sorted by id. */
  list(): Array<Record<string, unknown>> {
    const sections = [...this.sections].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return sections.map(([id, { type, server = null, port = null, disable = 0 }]) => ({
      id,
      disable,
      type,
      server,
      port,
    }));
  }

  /** GET one: the keys that are set plus `type`; never id, digest or token. */
  read(id: string): Section {
    const section = this.sections.get(id);
    if (!section) throw die(`status server entry '${id}' does not exist`);
    return { ...section };
  }

  /** POST: `type` and `id` are taken out, `token` goes to its own file (InfluxDB only). */
  create(id: string, params: Section): void {
    const { type, token, ...rest } = params;
    if (!isMetricType(type)) throw die(`unknown section type '${String(type)}'`);
    if (this.sections.has(id)) throw die(`Metric server '${id}' already exists`);
    const opts = checkConfig(type, rest, true);
    if (keepsToken(type)) this.storeToken(id, token === undefined ? null : String(token));
    // PVE tests the target after its on_add_hook stored the token; a failure deletes that file, writes no section.
    const refusal = this.connectionRefusal(opts);
    if (refusal !== undefined) {
      this.tokens.delete(id);
      throw refusal;
    }
    this.sections.set(id, asStored(opts));
  }

  /** PUT: digest, existence, per-type check, then the delete list; nothing changes on any error. */
  update(id: string, params: Section): void {
    const { digest, delete: deleteParam, token, ...rest } = params;
    const deletes = perlTrue(deleteParam) ? splitList(String(deleteParam)) : [];
    // extract_sensitive_params: delete=token means "remove", and a new value wins over it.
    let newToken: string | null | undefined = deletes.includes('token') ? null : undefined;
    if (token !== undefined) newToken = String(token);

    if (perlTrue(digest) && digest !== this.digest()) {
      throw die('detected modified configuration - file changed by other user? Try again.');
    }
    const current = this.sections.get(id);
    if (!current) throw die(`no such server '${id}'`);
    const { type } = current;
    if (!isMetricType(type)) throw die(`unknown section type '${String(type)}'`); // create and put keep it one
    const opts = checkConfig(type, rest, false);
    const next: Section = { ...current, ...opts };
    for (const key of deletes) {
      // An own option only: `constructor` or `__proto__` would otherwise read the object's prototype.
      const rule = Object.hasOwn(TYPE_OPTIONS[type], key) ? TYPE_OPTIONS[type][key] : undefined;
      if (!rule) throw die(`no such option '${key}'`);
      if (!rule.optional) throw die(`unable to delete required option '${key}'`);
      if (opts[key] !== undefined) {
        throw die(`cannot set and delete property '${key}' at the same time!`);
      }
      delete next[key];
    }
    // PVE's on_update_hook stores the token before the target is tested, so a refused update keeps the token sent.
    if (keepsToken(type) && newToken !== undefined) this.storeToken(id, newToken);
    const refusal = this.connectionRefusal(next);
    if (refusal !== undefined) throw refusal;
    this.sections.set(id, asStored(next));
  }

  /** Marks `server:port` down for the connection tests of creates and updates to come (metric-reach.ts). */
  failTarget(server: string, port: number, fault: TargetFault): void {
    this.faults.set(targetKey(server, port), fault);
  }

  /** DELETE: an unknown id reaches `lookup(undef)`, whose croak is the only answer PVE gives. */
  remove(id: string): void {
    if (!this.sections.has(id)) throw die(CROAK_UNDEFINED_TYPE);
    this.sections.delete(id);
    this.tokens.delete(id);
  }

  /** A copy of what status.cfg holds (each section with its `type`), without tokens. */
  snapshot(): Record<string, Section> {
    return Object.fromEntries([...this.sections].map(([id, section]) => [id, { ...section }]));
  }

  tokenSnapshot(): Record<string, string> {
    return Object.fromEntries(this.tokens);
  }

  /** An out-of-band edit (a human in the web UI); a `token` key goes to the token store. */
  put(id: string, section: Record<string, unknown>): void {
    const { token, ...rest } = section;
    if (!isMetricType(rest.type)) {
      throw new Error(`section '${id}' needs a metric type, got ${String(rest.type)}`);
    }
    const clean: Section = {};
    for (const [key, value] of Object.entries(rest)) {
      if (typeof value === 'boolean') clean[key] = value ? 1 : 0;
      else if (typeof value === 'number' || typeof value === 'string') clean[key] = value;
      else if (value !== undefined && value !== null) {
        throw new Error(`section '${id}': ${key} must be a string, number or boolean`);
      }
    }
    this.sections.set(id, clean);
    if (typeof token === 'string') this.tokens.set(id, token);
  }

  drop(id: string): void {
    this.sections.delete(id);
    this.tokens.delete(id);
  }

  /** A plain die: 500 with the plugin's text (cfs_lock re-raises an error of the locked code as it is). */
  private connectionRefusal(section: Section): PveError | undefined {
    const text = connectionRefusal(section, (server, port) => this.faults.get(targetKey(server, port)));
    return text === undefined ? undefined : new PveError(500, text);
  }

  private storeToken(id: string, token: string | null): void {
    if (token === null) this.tokens.delete(id);
    else this.tokens.set(id, token);
  }
}
