/**
 * The fake systemd's answer to the Linux handlers' batch read (unit-read.ts's script): what `systemctl show`,
 * the digests, records, intents, list-unit-files and is-enabled would print between its marks, read from the
 * fake's files and units. Apart from fake-systemd.ts, which keeps the host's state, so each file stays one concept.
 */
import { sha256Hex } from '../../../../src/core/canonical';

const DIR = '/etc/systemd/system';

/** The quoted operands of a command line, as the handlers quote them. */
export const operands = (text: string): string[] => [...text.matchAll(/'([^']*)'/g)].map((match) => match[1] as string);

/** What the read needs of the fake host. */
export interface ReadHost {
  readonly files: ReadonlyMap<string, string>;
  readonly masked: ReadonlySet<string>;
  readonly show: (name: string) => string;
  readonly fileOf: (name: string) => string | undefined;
  /** What list-unit-files and is-enabled say of a unit. */
  readonly fileState: (name: string) => string;
}

export const readScript = (script: string, host: ReadHost): string => {
  const { files, masked, show, fileOf, fileState } = host;
  // The `show` of the declared units (`s=$(…)`), never the one of a template's instances by glob (template-runs.ts).
  const showLine = /^s=\$\(.*systemctl show -p \S+ -- (.*)\n/m.exec(script)?.[1] ?? '';
  const shown = operands(showLine).map(show).join('\n');
  const paths = operands(/set -- (.*?); k=; /.exec(script)?.[1] ?? '');
  const digests = paths.flatMap((path) => (files.has(path) ? [`${sha256Hex(files.get(path) ?? '')}  ${path}`] : []));
  // The records' loop, then the intents' (unit-read.ts).
  const [records = [], intents = []] = [...script.matchAll(/i=0; for f in (.*?); do/g)].map(([, list]) =>
    operands(list ?? '').flatMap((path, i) => (files.has(path) ? [`${i} ${(files.get(path) ?? '').trim()}`] : [])),
  );
  // list-unit-files: a line for each name with a file of its own (a template is disabled), none for the others.
  const listed = operands(/systemctl list-unit-files --no-legend --no-pager -- (.*) 2>/.exec(script)?.[1] ?? '');
  const unitFiles = listed.flatMap((name) => {
    if (masked.has(name)) return [`${name} masked enabled`];
    if (!files.has(`${DIR}/${name}`)) return [];
    return [`${name} ${name.includes('@.') ? 'disabled' : fileState(name)} enabled`];
  });
  // is-enabled of the instances: each one's state in order, up to the first whose template has no file.
  const asked = operands(/systemctl is-enabled -- (.*) 2>/.exec(script)?.[1] ?? '');
  const gone = asked.findIndex((name) => fileOf(name) === undefined);
  const instances = asked.slice(0, gone < 0 ? asked.length : gone).map((name) => fileState(name));
  const mark = (name: string) => `@@cdktf-homelab:${name}`;
  const parts = [
    shown,
    mark('files'),
    ...digests,
    mark('stats'),
    mark('restart-on'),
    ...records,
    mark('intents'),
    ...intents,
    mark('unit-files'),
    ...unitFiles,
    mark('instances'),
    ...instances,
    mark('now'),
    '0',
  ];
  return parts.join('\n') + '\n';
};
