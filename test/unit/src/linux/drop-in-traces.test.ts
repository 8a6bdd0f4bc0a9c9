// Unit test of the trace a drop-in's destroy leaves and the batch apply reads (drop-in-traces.ts): the read's lines,
// run by sh against files made here, and the steps that write and clear a trace, each by its checked words.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as traces from '../../../../src/linux/drop-in-traces';
import { DROP_IN_MARK_DIR, DROP_IN_TRACE_DIR } from '../../../../src/linux/state-paths';

const { clearTraceStep, dropInAt, parseRemovedDropIns, REMOVED_DROP_INS, traceDropInStep } = traces;
const DIR = '/etc/systemd/system';
const dropIn = { directory: DIR, unit: 'a@.service', name: '10-v' };

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'traces-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** `text` at `path` under the test's root, its directories made. */
const put = (path: string, text: string) => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
};

test("the read gives each trace's stamp by path, and the marked drop-ins whose file is gone", () => {
  const units = `${root}/units`;
  put(`traces${units}/a.service.d/10-v.conf`, '1765100000.123456789 2049:77\n');
  put(`marks${units}/a.service.d/20-w.conf`, 'cdktf-homelab stack=s1\n');
  put(`marks${units}/a.service.d/30-x.conf`, 'cdktf-homelab stack=s1\n');
  put(`units/a.service.d/30-x.conf`, '[Service]\n');
  const script = REMOVED_DROP_INS.replace(DROP_IN_TRACE_DIR, `${root}/traces`).replace(
    DROP_IN_MARK_DIR,
    `${root}/marks`,
  );
  const answer = parseRemovedDropIns(execFileSync('sh', ['-c', script], { encoding: 'utf8' }));
  expect(answer).toEqual({
    traced: new Map([[`${units}/a.service.d/10-v.conf`, '1765100000.123456789 2049:77']]),
    markedGone: [`${units}/a.service.d/20-w.conf`],
  });
});

test('the read of a host with no trace and no mark is empty', () => {
  const script = REMOVED_DROP_INS.replace(DROP_IN_TRACE_DIR, `${root}/none`).replace(DROP_IN_MARK_DIR, `${root}/no`);
  expect(execFileSync('sh', ['-c', script], { encoding: 'utf8' })).toBe('');
});

test('a trace names the drop-in and the stamp its destroy read; its clearing names the drop-in alone', () => {
  expect(traceDropInStep(dropIn, { time: 1765100000.1234567, file: '2049:77' }).join(' ')).toBe(
    `trace-drop-in ${DIR} a@.service 10-v 1765100000.1234567 2049:77`,
  );
  expect(clearTraceStep(dropIn).join(' ')).toBe(`clear-drop-in-trace ${DIR} a@.service 10-v`);
});

test("a trace's path gives back its drop-in, and nothing for a path no drop-in has", () => {
  expect(dropInAt(`${DIR}/a@.service.d/10-v.conf`)).toEqual(dropIn);
  expect(dropInAt(`${DIR}/a@.service`)).toBeUndefined();
});
