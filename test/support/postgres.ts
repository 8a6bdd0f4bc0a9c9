/**
 * A real PostgreSQL server for the pg backend e2e: Debian's postgresql (scripts/setup-postgres.sh installs it), a
 * throwaway cluster in a private folder owned by the postgres user (the server refuses to run as root), trust
 * authentication on 127.0.0.1 only, a free port, one database for the state. Every step has a bounded wait, so a
 * server that does not come up fails the test with its log instead of hanging it.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);
const PG_ROOT = '/usr/lib/postgresql';
const STEP_MS = 60_000;

export interface Postgres {
  /** `postgres://postgres@127.0.0.1:<port>/terraform?sslmode=disable`, what PG_CONN_STR holds. */
  readonly connStr: string;
  /** Runs one SQL statement in the state's database; resolves to psql's unaligned output. */
  query(sql: string): Promise<string>;
  stop(): Promise<void>;
}

/** The newest installed server's bin folder, or a failure naming the setup script. */
const binDir = (): string => {
  const versions = existsSync(PG_ROOT) ? readdirSync(PG_ROOT).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new Error(`no PostgreSQL under ${PG_ROOT}: run bash scripts/setup-postgres.sh`);
  return join(PG_ROOT, newest, 'bin');
};

export const startPostgres = async (): Promise<Postgres> => {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'homelab-pg-'));
  const asRoot = process.getuid?.() === 0;
  // As root, each server command runs as the postgres user, owner of the folder; otherwise as ourselves.
  const asServer = async (file: string, args: string[]): Promise<void> => {
    const [command, prefix] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, file)]] : [join(bin, file), []];
    await run(command, [...prefix, ...args], { timeout: STEP_MS });
  };
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  const log = join(dir, 'server.log');
  await asServer('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`;
  try {
    await asServer('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', '-t', '60', 'start']);
  } catch (error) {
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '(no log)';
    throw new Error(`PostgreSQL did not start on 127.0.0.1:${port}: ${(error as Error).message}\n${tail}`, {
      cause: error,
    });
  }
  const psql = async (database: string, sql: string): Promise<string> => {
    const args = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-XAtq', '-c', sql];
    return (await run(join(bin, 'psql'), args, { timeout: STEP_MS })).stdout;
  };
  await psql('postgres', 'CREATE DATABASE terraform');
  return {
    connStr: `postgres://postgres@127.0.0.1:${port}/terraform?sslmode=disable`,
    query: (sql) => psql('terraform', sql),
    stop: async () => {
      await asServer('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
