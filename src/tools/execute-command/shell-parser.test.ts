import { describe, expect, it } from 'vitest';
import { type Command, type List, parseShell, ShellSyntaxError, type Word } from './shell-parser.js';

/** The literal text of a word whose parts are all text (quotes removed). */
function text(word: Word): string {
  return word.parts.map((p) => (p.kind === 'text' ? p.text : `<${p.kind}>`)).join('');
}

function simple(list: List, item = 0, command = 0): Extract<Command, { type: 'simple' }> {
  const found = list.items[item]?.andOr.first.commands[command];
  if (found?.type !== 'simple') throw new Error(`not a simple command: ${JSON.stringify(found)}`);
  return found;
}

function words(source: string): string[] {
  return simple(parseShell(source)).words.map(text);
}

describe('parseShell', () => {
  it('splits words and removes quotes', () => {
    expect(words(`echo a 'b c' "d e" f\\ g`)).toEqual(['echo', 'a', 'b c', 'd e', 'f g']);
    expect(words(`e"ch"'o' x`)).toEqual(['echo', 'x']);
    expect(words(`printf $'a\\x2fb\\n'`)).toEqual(['printf', 'a/b\n']);
  });

  it('separates lists, and-or chains, pipelines and background jobs', () => {
    const list = parseShell('a; b && c || d | e & f\ng');
    expect(list.items.map((i) => i.background)).toEqual([false, true, false, false]);
    const andOr = list.items[1]!.andOr;
    expect(andOr.rest.map((r) => r.op)).toEqual(['&&', '||']);
    expect(andOr.rest[1]!.pipeline.commands).toHaveLength(2);
  });

  it('reads redirections, with or without a file descriptor', () => {
    const command = simple(parseShell('cmd >out 2>>err &>all <in 2>&1 >|force'));
    expect(command.redirects.map((r) => [r.fd, r.op, text(r.target)])).toEqual([
      [null, '>', 'out'],
      ['2', '>>', 'err'],
      [null, '&>', 'all'],
      [null, '<', 'in'],
      ['2', '>&', '1'],
      [null, '>|', 'force'],
    ]);
  });

  it('finds command substitutions, backticks and process substitutions inside words', () => {
    const command = simple(parseShell('echo "x $(rm -rf a) `rm b`" <(ls c)'));
    const kinds = command.words[1]!.parts.map((p) => p.kind);
    expect(kinds).toEqual(['text', 'command', 'text', 'command']);
    const inner = command.words[1]!.parts[1];
    if (inner?.kind !== 'command') throw new Error('expected a command');
    expect(simple(inner.body).words.map(text)).toEqual(['rm', '-rf', 'a']);
    expect(command.words[2]!.parts[0]!.kind).toBe('process');
  });

  it('reads heredocs, quoted or not, after the line they are on', () => {
    const list = parseShell('cat <<EOF >out\nhello $(whoami)\nEOF\necho next');
    const redirect = simple(list).redirects[0]!;
    expect(redirect.heredoc?.text).toBe('hello $(whoami)\n');
    expect(redirect.heredoc?.parts.some((p) => p.kind === 'command')).toBe(true);
    expect(simple(list, 1).words.map(text)).toEqual(['echo', 'next']);
    const quoted = simple(parseShell("cat <<'EOF'\n$(not run)\nEOF")).redirects[0]!;
    expect(quoted.heredoc?.parts).toEqual([{ kind: 'text', text: '$(not run)\n', quoted: true }]);
    const stripped = simple(parseShell('cat <<-EOF\n\tindented\n\tEOF\n')).redirects[0]!;
    expect(stripped.heredoc?.text).toBe('indented\n');
  });

  it('understands compound commands', () => {
    const types = (source: string): string[] =>
      parseShell(source).items.map((i) => i.andOr.first.commands[0]!.type);
    expect(types('if a; then b; elif c; then d; else e; fi')).toEqual(['if']);
    expect(types('while a; do b; done; until a; do b; done')).toEqual(['while', 'while']);
    expect(types('for x in a b; do c; done; for ((i=0;i<3;i++)); do :; done')).toEqual(['for', 'for']);
    expect(types('case $x in a|b) c;; (d) e;; esac')).toEqual(['case']);
    expect(types('{ a; b; }; (c; d)')).toEqual(['group', 'subshell']);
    expect(types('f() { a; }; function g { b; }')).toEqual(['function', 'function']);
    expect(types('((i++)); [[ a =~ ^(x|y)$ ]]')).toEqual(['arith', 'test']);
  });

  it('tells assignments from arguments', () => {
    const command = simple(parseShell('A=1 B+=2 C=(x y) cmd D=3'));
    expect(command.assigns.map((a) => [a.name, a.append])).toEqual([
      ['A', false],
      ['B', true],
      ['C', false],
    ]);
    expect(command.assigns[2]!.array?.map(text)).toEqual(['x', 'y']);
    expect(command.words.map(text)).toEqual(['cmd', 'D=3']);
  });

  it('skips comments and line continuations', () => {
    expect(words('echo a \\\n b # rm -rf /')).toEqual(['echo', 'a', 'b']);
    expect(parseShell('# only a comment').items).toHaveLength(0);
  });

  it('parses parameter expansions with operators, keeping their nested substitutions', () => {
    const command = simple(parseShell('echo ${x:-$(rm y)} ${#x} ${HOME}'));
    const [withDefault, length, home] = command.words.slice(1).map((w) => w.parts[0]!);
    expect(withDefault).toMatchObject({ kind: 'param', name: 'x', op: '|:-$(rm y)' });
    if (withDefault?.kind !== 'param') throw new Error('expected a parameter');
    expect(withDefault.nested.some((p) => p.kind === 'command')).toBe(true);
    expect(length).toMatchObject({ kind: 'param', name: 'x', op: '#|' });
    expect(home).toMatchObject({ kind: 'param', name: 'HOME', op: null });
  });

  it('rejects what bash would reject, and absurd nesting', () => {
    for (const bad of [
      'echo "open',
      "echo 'open",
      'echo $(open',
      'if a; then b',
      'a ) b',
      ';; x',
      'echo `x',
    ]) {
      expect(() => parseShell(bad), bad).toThrow(ShellSyntaxError);
    }
    expect(() => parseShell(`${'$('.repeat(200)}x${')'.repeat(200)}`)).toThrow(ShellSyntaxError);
  });
});
