/**
 * A `systemctl` ahead of systemd's on root's PATH that, once, at the command line a test names, kills the sshd of its
 * own SSH session (as a lost link or a kill would) and removes itself: how the contract tests stop a handler run
 * at one exact step. One copy, so a stop the tests rely on cannot drift between them into one that never stops.
 */
import { quote } from '../../src/linux/shell';
import type { SystemdHost } from './systemd-host';

/** Ahead of /usr/bin/systemctl on root's PATH on the test host (Debian's /usr/sbin comes first). */
export const STOPPER = '/usr/sbin/systemctl';

/** The stand-in's text: it stops at the first call whose arguments hold `words` in that order, each a whole word. */
export const stopperScript = (words: readonly string[]): string =>
  [
    '#!/bin/sh',
    `case " $* " in *${words.map((word) => quote(` ${word} `)).join('*')}*)`,
    `  rm -f ${STOPPER}`,
    '  p=$PPID',
    '  while [ "$p" -gt 1 ]; do',
    '    [ "$(cat /proc/$p/comm)" = sshd ] && kill -9 "$p" && exit 1',
    "    p=$(awk '{ print $4 }' /proc/$p/stat)",
    '  done',
    '  exit 1 ;;',
    'esac',
    'exec /usr/bin/systemctl "$@"',
    '',
  ].join('\n');

/**
 * Puts the stand-in on `host` and removes it after each test of the file; `fired()` is true once it stopped a
 * session (it removes itself then), so a test proves its stop happened where it meant it to.
 */
export const useSessionStopper = (host: () => SystemdHost) => {
  afterEach(async () => {
    await host().exec(`rm -f ${STOPPER}`);
  });
  const put = async (...words: string[]) => {
    const { code, stderr } = await host().exec(
      `printf '%s' ${quote(stopperScript(words))} >${STOPPER} && chmod 0755 ${STOPPER}`,
    );
    if (code !== 0) throw new Error(`the systemctl stand-in was not installed: ${stderr}`);
  };
  const fired = async () => (await host().exec(`test -e ${STOPPER}`)).code !== 0;
  return { put, fired };
};
