/**
 * Whether a Terraform run destroys its whole state, from its command line and TF_CLI_ARGS, and which run a hook is
 * in: a teardown that took a targeted destroy, a replace or a saved plan for a whole one would remove objects the plan
 * never named (teardown.ts), so anything unknown proves nothing.
 */
import {
  destroysWholeState,
  readInWholeDestroy,
  runArgv,
  runKey,
  statFields,
  terraformRun,
} from '../../../../../src/core/destroy-relay';

const argv = (line: string) => line.split(' ');

describe('destroysWholeState', () => {
  test.each([
    'terraform destroy',
    'terraform destroy -auto-approve -no-color',
    'terraform destroy -auto-approve -input=false -parallelism=30 -lock-timeout=5s -var=a=b -var-file=x.tfvars',
    '/usr/bin/tofu -chdir=stacks/scale destroy -auto-approve -refresh=false -compact-warnings -concise',
    'terraform apply -destroy -auto-approve',
    'terraform apply --destroy -json',
  ])('%s destroys the whole state', (line) => {
    expect(destroysWholeState(argv(line), {})).toBe(true);
  });

  test.each([
    'terraform destroy -target=terraform_data.unit0_lifecycle',
    'terraform destroy -target terraform_data.unit0_lifecycle',
    'terraform destroy --target=x',
    'tofu destroy -exclude=terraform_data.unit0_lifecycle',
    'tofu destroy -target-file=targets',
    'terraform destroy -replace=x',
    'terraform destroy -state-out=other.tfstate',
    'terraform destroy -var a=b',
    'terraform destroy some-dir',
    'terraform apply -auto-approve',
    'terraform apply -destroy plan.tfplan',
    'terraform apply -destroy=false',
    'terraform apply plan',
    'terraform plan -destroy',
    'terraform -help destroy',
    'terraform',
  ])('%s does not', (line) => {
    expect(destroysWholeState(argv(line), {})).toBe(false);
  });

  test("TF_CLI_ARGS and the command's own variable count as arguments; another command's does not", () => {
    const destroy = argv('terraform destroy -auto-approve');
    expect(destroysWholeState(destroy, { TF_CLI_ARGS: '-no-color  -parallelism=5' })).toBe(true);
    expect(destroysWholeState(destroy, { TF_CLI_ARGS: '-target=x' })).toBe(false);
    expect(destroysWholeState(destroy, { TF_CLI_ARGS_destroy: '-target=x' })).toBe(false);
    expect(destroysWholeState(destroy, { TF_CLI_ARGS_apply: '-target=x' })).toBe(true);
    expect(destroysWholeState(argv('terraform apply -auto-approve'), { TF_CLI_ARGS_apply: '-destroy' })).toBe(true);
    expect(destroysWholeState(argv('terraform apply -destroy'), { TF_CLI_ARGS_apply: '-target=x' })).toBe(false);
  });
});

/** A /proc/<pid>/stat line: its name, its parent and its start time in fields 2, 4 and 22. */
const stat = (pid: number, comm: string, ppid: number, start = pid * 10) =>
  `${pid} (${comm}) S ${ppid} ${Array.from({ length: 17 }, (_, i) => i + 5).join(' ')} ${start} 0 0`;

describe('the run a hook is in', () => {
  const procs: Record<number, { stat: string; cmdline: string }> = {
    300: { stat: stat(300, 'sh', 200, 9300), cmdline: 'sh\0hook.sh\0' },
    200: { stat: stat(200, 'sh', 100, 9200), cmdline: '/bin/sh\0-c\0sh hook.sh\0' },
    100: { stat: stat(100, 'terraform', 1, 9100), cmdline: 'terraform\0destroy\0-auto-approve\0' },
  };
  const read = (pid: number, file: 'stat' | 'cmdline') => (procs[pid] === undefined ? undefined : procs[pid][file]);

  test('is the nearest ancestor that is no shell, with its start time, and its arguments', () => {
    const run = terraformRun(300, read);
    expect(run).toEqual({ pid: 100, start: '9100' });
    expect(runKey({ pid: 100, start: '9100' })).toBe('100.9100');
    expect(run && runArgv(run, read)).toEqual(['terraform', 'destroy', '-auto-approve']);
  });

  test('a pid another process now holds, or one gone, has no arguments', () => {
    expect(runArgv({ pid: 100, start: '1' }, read)).toBeUndefined();
    expect(runArgv({ pid: 999, start: '9100' }, read)).toBeUndefined();
    expect(terraformRun(999, read)).toBeUndefined();
  });

  test('a name with spaces and parentheses is read to its last parenthesis', () => {
    expect(statFields(stat(5, 'a) (b', 4, 77))).toEqual({ comm: 'a) (b', ppid: 4, start: '77' });
    expect(statFields('garbage')).toBeUndefined();
  });

  test('only shells are walked past, at most a few', () => {
    const shells: Record<number, { stat: string; cmdline: string }> = {};
    for (let pid = 10; pid < 20; pid += 1) shells[pid] = { stat: stat(pid, 'dash', pid + 1, pid), cmdline: '' };
    expect(terraformRun(10, (pid, file) => shells[pid]?.[file])).toBeUndefined();
  });

  test('this process: its parent is found on this machine, as the sh hook finds it', () => {
    const run = terraformRun(process.pid);
    expect(run?.pid).toBe(process.pid);
    expect(run && runArgv(run)?.[0]).toBe(process.argv0);
  });
});

describe('whether a batch read runs in a destroy of the whole state', () => {
  /** The read's parent, the external provider (pid 50), under Terraform (pid 40) run as `line`. */
  const tree = (line: string) => {
    const procs: Record<number, { stat: string; cmdline: string }> = {
      50: { stat: stat(50, 'terraform-provi', 40), cmdline: 'terraform-provider-external_v2.3.5_x5\0' },
      40: { stat: stat(40, 'terraform', 1), cmdline: `${line.split(' ').join('\0')}\0` },
    };
    return (pid: number, file: 'stat' | 'cmdline') => procs[pid]?.[file];
  };

  test.each([
    ['terraform destroy -auto-approve', {}, true],
    ['terraform apply -destroy', {}, true],
    ['terraform apply', { TF_CLI_ARGS_apply: '-destroy' }, true],
    ['terraform plan -destroy', {}, false],
    ['terraform destroy -target=terraform_data.a_lifecycle', {}, false],
    ['terraform apply', {}, false],
  ])('%s (%j): %s', (line, env, whole) => {
    expect(readInWholeDestroy(env, 50, tree(line))).toBe(whole);
  });

  test('the provider is never taken for Terraform, nor a read without a provider above it', () => {
    const provider = tree('terraform destroy');
    // A read run by hand from a shell: its parent is the shell, whose run is whatever ran the shell.
    expect(readInWholeDestroy({}, 40, provider)).toBe(false);
    expect(readInWholeDestroy({}, 999, provider)).toBe(false);
  });
});
