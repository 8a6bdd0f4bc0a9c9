/**
 * The package's command line behind bin/cdktf-homelab.js, which serves `fake-pve` itself: `discover` writes
 * a stack from what runs on the targets, `prune-record` drops applied tombstones from the stack's record,
 * `root-helper` prints the root helper a non-root SSH user's sudoers line names (README, SshHost),
 * `--version` names the build (the commit too, for one that is not a release).
 * One bundle that requires nothing outside itself (test/faults/discover-bundle.test.ts). A failure prints
 * one line naming the command and exits 1; nothing was written.
 */
import { errorMessage, HandlerError } from '../core/errors';
import { runDiscover } from '../discover/main';
import { USAGE } from '../discover/options';
import { commentText } from '../discover/literal';
import { rootHelperText } from '../linux/root-helper';
import { PRUNE_USAGE, runPruneRecord, terraformStateList } from '../record/main';

const say = (line: string) => process.stderr.write(`${commentText(line)}\n`);

// The version and, for a build that is not a release, its commit: put in by scripts/bundle-handlers.js.
declare const __HOMELAB_BUILD__: string | undefined;
const BUILD = typeof __HOMELAB_BUILD__ === 'string' ? __HOMELAB_BUILD__ : 'dev (run from source)';

const COMMANDS: Readonly<Record<string, (args: readonly string[]) => Promise<number>>> = {
  discover: runDiscover,
  'prune-record': (args) =>
    runPruneRecord(args, {
      cwd: process.cwd(),
      stateList: terraformStateList(process.env.TERRAFORM_BINARY_NAME || 'terraform'),
      say,
    }),
  'root-helper': async (args) => {
    if (args.length > 0) throw new Error('it takes no arguments: it prints the helper, to install on a host');
    process.stdout.write(rootHelperText());
    return 0;
  },
};

/** What `root-helper` does, for the usage text. */
const ROOT_HELPER_USAGE =
  'cdktf-homelab root-helper\n' +
  '  Prints the root helper a non-root SshHost user runs through sudo; install it on each host as root:\n' +
  "  npx cdktf-homelab root-helper | ssh root@HOST 'install -m 0755 -o root -g root /dev/stdin " +
  "/usr/local/sbin/cdktf-homelab-root'";

const main = async (argv: readonly string[]): Promise<number> => {
  const [command = '', ...args] = argv;
  if (command === '--version' || command === '-v') {
    process.stdout.write(`cdktf-homelab ${BUILD}\n`);
    return 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run === undefined) {
    process.stdout.write(`${USAGE}\n\n${PRUNE_USAGE}\n\n${ROOT_HELPER_USAGE}\n`);
    return command === '--help' ? 0 : 2;
  }
  try {
    return await run(args);
  } catch (error) {
    // A handler's error with its labelled facts (Endpoint:, Request:), as a plan prints it: a 401 named no endpoint.
    say(`${command}: nothing written: ${error instanceof HandlerError ? error.oneLine() : errorMessage(error)}`);
    return 1;
  }
};

main(process.argv.slice(2)).then((code) => process.exit(code));
