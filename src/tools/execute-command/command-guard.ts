/**
 * A short deny-list checked before `execute_command` runs anything. It is not the security boundary —
 * the OS sandbox (or the container) is — it only turns a few commands that are never what an agent
 * should do into a friendly refusal instead of a confusing failure (or, unsandboxed, a disaster).
 */
export type CommandVerdict = { allowed: true } | { allowed: false; reason: string };

interface Rule {
  pattern: RegExp;
  reason: string;
}

const word = (w: string) => `(?:^|[\\s;&|({\`]|\\$\\()${w}(?=\\s|$)`;

const RULES: Rule[] = [
  {
    // rm -rf /, rm -fr /*, rm -r -f ~, rm --recursive --force / …
    pattern: new RegExp(
      `${word('rm')}(?:\\s+-[-\\w]+)*\\s+(?:--no-preserve-root\\s+)?(?:/\\*?|~/?|\\$HOME/?)(?=\\s|$|;|&)`,
    ),
    reason: 'rm -rf / and its variants (the root or the home folder) are never run',
  },
  {
    pattern: new RegExp(word('(?:sudo|su|doas|pkexec)')),
    reason: '"sudo" and the like run commands as another user; work with what your own user may do',
  },
  {
    pattern: /:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&[^}]*\}/,
    reason: 'this looks like a fork bomb',
  },
  {
    pattern: new RegExp(word('(?:mkfs(?:\\.\\w+)?|fdisk|parted|wipefs|mkswap)')),
    reason: 'formatting or partitioning disks is never run',
  },
  {
    pattern: new RegExp(word('(?:shutdown|reboot|halt|poweroff)')),
    reason: 'shutting down or rebooting the machine is never run',
  },
  {
    pattern: /\bdd\b[^;&|]*\bof=\/dev\/(?!null\b|zero\b|stdout\b|stderr\b)/,
    reason: 'writing to a raw device with dd is never run',
  },
];

/** Checks a command against the deny-list. */
export function guardCommand(command: string): CommandVerdict {
  for (const rule of RULES) {
    if (rule.pattern.test(command)) return { allowed: false, reason: `Command not run: ${rule.reason}.` };
  }
  return { allowed: true };
}
