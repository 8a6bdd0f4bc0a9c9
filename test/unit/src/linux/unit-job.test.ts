import { describeJob, describeQueue, isStalled, parseUnitJob } from '../../../../src/linux/unit-job';

// `systemctl list-jobs --no-pager --no-legend --after --before -- hx.service` on systemd 252, captured.
const BEHIND =
  '124 hx.service                                start waiting\n' +
  '└─  \twaiting for job 75 (hslow.service/start) -     -\n';
const BLOCKING =
  '75 hslow.service                        start running\n└─ \tblocking job 124 (hx.service/start) -     -\n';

describe('parseUnitJob', () => {
  test('reads the job of the named unit and the jobs it waits for', () => {
    expect(parseUnitJob(BEHIND, 'hx.service')).toEqual({
      id: '124',
      type: 'start',
      state: 'waiting',
      waitingFor: ['job 75 (hslow.service/start)'],
    });
  });

  test('a job that blocks others waits for nothing; a unit without a job has none', () => {
    expect(parseUnitJob(BLOCKING, 'hslow.service')).toMatchObject({ state: 'running', waitingFor: [] });
    expect(parseUnitJob('', 'hx.service')).toBeUndefined();
    expect(parseUnitJob(BEHIND, 'hslow.service')).toBeUndefined();
  });
});

describe('isStalled and describeJob', () => {
  const job = (state: string, type = 'start', waitingFor: string[] = []) => ({ id: '9', type, state, waitingFor });
  test('only a queued start, stop or restart with nothing ahead of it is stalled', () => {
    expect(isStalled(job('waiting'))).toBe(true);
    expect(isStalled(job('waiting', 'restart'))).toBe(true);
    expect(isStalled(job('running'))).toBe(false);
    expect(isStalled(job('waiting', 'reload'))).toBe(false);
    expect(isStalled(job('waiting', 'start', ['job 75 (db.service/start)']))).toBe(false);
  });

  test('says what a queued job waits for, or that it waits for none; nothing of a running one', () => {
    expect(describeJob(job('waiting', 'start', ['job 75 (db.service/start)']))).toBe(
      'its start job 9 is still waiting for job 75 (db.service/start)',
    );
    expect(describeJob(job('waiting'))).toBe('its start job 9 is still waiting, for no other job');
    expect(describeJob(job('running'))).toBeUndefined();
  });
});

describe('describeQueue', () => {
  test("names systemd's jobs from the whole list, the first few only, and says when there are none", () => {
    expect(describeQueue(BLOCKING + BEHIND)).toBe(
      'systemd holds 2 jobs: 75 hslow.service start running; 124 hx.service start waiting',
    );
    const many = Array.from({ length: 7 }, (_, i) => `${i + 1} u${i}.service start waiting\n`).join('');
    expect(describeQueue(many, 2)).toBe(
      'systemd holds 7 jobs: 1 u0.service start waiting; 2 u1.service start waiting; and 5 more',
    );
    expect(describeQueue('')).toBe('systemd holds 0 jobs');
  });
});
