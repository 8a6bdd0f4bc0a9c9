/**
 * `npm run faults -- --rounds N --seed S [--only R | --type T]`: the fault campaign against the PVE simulator, the real
 * systemd host and the real kube-apiserver. Prints a line per round, then the table; exits 1 when a round
 * needed a hand or a plan lied, 2 on a usage error.
 */
import { runCampaign } from './campaign';
import { FAULT_TYPES, type FaultType } from './faults';

const USAGE = 'usage: npm run faults -- [--rounds N] [--seed S] [--only R | --type T]';

const parse = (argv: string[]) => {
  const options = {
    rounds: 12,
    seed: Math.floor(Math.random() * 2 ** 31),
    only: undefined as number | undefined,
    type: undefined as FaultType | undefined,
  };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--type') {
      const type = FAULT_TYPES.find((name) => name === argv[i + 1]);
      if (type === undefined) throw new Error(`--type ${argv[i + 1] ?? ''}: expected one of ${FAULT_TYPES.join(', ')}`);
      options.type = type;
      i += 1;
      continue;
    }
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if (!['--rounds', '--seed', '--only'].includes(flag ?? '') || !Number.isInteger(value) || value < 0) {
      throw new Error(
        `${flag} ${argv[i + 1] ?? ''}: expected --rounds, --seed or --only with a whole number\n${USAGE}`,
      );
    }
    if (flag === '--rounds') options.rounds = value;
    if (flag === '--seed') options.seed = value;
    if (flag === '--only') options.only = value;
    i += 1;
  }
  return options;
};

const main = async () => {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const only =
    options.only !== undefined
      ? `round ${options.only} only`
      : `${options.rounds} rounds${options.type === undefined ? '' : `, those of ${options.type} only`}`;
  console.log(`fault campaign: seed ${options.seed}, ${only}`);
  const report = await runCampaign({ ...options, log: (line) => console.log(line) });
  console.log(`\n${report.text}`);
  return report.ok ? 0 : 1;
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`fault campaign: ${(error as Error).stack ?? String(error)}`);
    process.exit(3);
  },
);
