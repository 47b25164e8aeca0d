/**
 * Command-line basic auth: `curl -u user:password`, `--user user:password`,
 * `--user=user:password`. The password passes the same gates as an assigned password.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { CARRIAGE_RETURN, LINE_FEED, SPACE, TAB } from './chars.js';
import { isPlausiblePassword } from './credential-values.js';
import { codeAt, skipBlanks } from './text-boundaries.js';

/** The flag's argument: `user:password`, optionally quoted; the user may be empty (`-u :token`). */
const CLI_USER_ARGUMENT = /(["']?)([^\s:"'$]*):([^\s"']+)\1(?=\s|$)/y;

function detectCliUserCredentials(context: DetectorContext<'secret.password_assignment'>): void {
  const { text, scan } = context;
  for (const flag of ['-u ', '--user ', '--user=']) {
    for (const position of context.positions(flag)) {
      // A flag starts a word: "git-u " or "menu --user" inside another word are not flags. It
      // may start a line: a long command is continued with `\` and a line break.
      const before = codeAt(text, position - 1);
      if (position > 0 && before !== SPACE && before !== TAB && before !== LINE_FEED && before !== CARRIAGE_RETURN) continue;
      CLI_USER_ARGUMENT.lastIndex = skipBlanks(text, position + flag.length);
      const match = CLI_USER_ARGUMENT.exec(text);
      const user = match?.[2];
      const password = match?.[3];
      if (match === null || user === undefined || password === undefined || password === user) continue;
      // `-u 1000:1000` (docker uid:gid) and `-u origin:main` are not credentials: the password
      // must pass the same gates as an assigned password.
      if (/^\d+$/.test(password) || !isPlausiblePassword(password, false)) continue;
      const start = match.index + match[0].length - (match[1] ?? '').length - password.length;
      scan.emit('secret.password_assignment', start, start + password.length);
    }
  }
}

export const cliUserCredentialDetector = defineDetector({
  name: 'cli-user-credentials',
  ruleIds: ['secret.password_assignment'],
  keywords: ['-u ', '--user ', '--user='],
  detect: detectCliUserCredentials,
});
