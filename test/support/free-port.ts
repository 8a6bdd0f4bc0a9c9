/**
 * A loopback port for a test server that binds it later (sshd in a booting container, PostgreSQL, etcd, the fake
 * PVE), picked below the kernel's ephemeral range.
 *
 * Prevents: a port asked of the kernel (bind to 0) comes from `ip_local_port_range`, the same range every outgoing
 * connection's local port comes from. Released, it stays free only until some connection on the machine is given it,
 * and that connection, or its TIME_WAIT for 60 s after, makes the server's later bind fail with EADDRINUSE. Measured
 * here (Linux, 32768-60999): a listen on a connected client's local port fails, and fails again after the client
 * closed. CI at 8eefd7a lost a systemd test host so: its ssh.service failed at boot on a port picked before the boot
 * (root-helper.test.ts, 14 tests). Below the range only servers that name their port take one, and the pick checks
 * that none holds it.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';

/** The lowest port this picks from: above the registered ports most services on a developer's machine use. */
export const LOWEST_PICKED = 20_000;
const ATTEMPTS = 50;

/** The kernel's ephemeral range, from /proc; Linux's default where /proc does not say. */
export function ephemeralRange(
  read: () => string = () => readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'),
): [number, number] {
  try {
    const m = /^(\d+)\s+(\d+)$/.exec(read().trim());
    if (m && Number(m[1]) <= Number(m[2])) return [Number(m[1]), Number(m[2])];
  } catch {
    // no /proc: the default below
  }
  return [32_768, 60_999];
}

/** Resolves true when a server could listen on 127.0.0.1:port now. */
export const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ host: '127.0.0.1', port, exclusive: true }, () => srv.close(() => resolve(true)));
  });

/** The wider of the spans below and above the ephemeral range, from LOWEST_PICKED up; fails when both are small. */
export function pickSpan([low, high]: [number, number]): [number, number] {
  const below: [number, number] = [LOWEST_PICKED, low - 1];
  const above: [number, number] = [Math.max(LOWEST_PICKED, high + 1), 65_535];
  const size = ([a, b]: [number, number]) => b - a + 1;
  const span = size(below) >= size(above) ? below : above;
  if (size(span) < 1000) {
    throw new Error(
      `net.ipv4.ip_local_port_range is ${low}-${high}: fewer than 1000 ports from ${LOWEST_PICKED} lie outside it ` +
        'for the test servers; narrow it (sysctl -w net.ipv4.ip_local_port_range="32768 60999")',
    );
  }
  return span;
}

/**
 * A port outside the ephemeral range that no server holds now. Random, so that test files running side by side
 * rarely pick the same one before either binds it.
 */
export async function freePort(): Promise<number> {
  const [from, to] = pickSpan(ephemeralRange());
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = randomInt(from, to + 1);
    if (await portFree(port)) return port;
  }
  throw new Error(`no free port from ${from} to ${to} after ${ATTEMPTS} tries`);
}
