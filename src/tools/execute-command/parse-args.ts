/**
 * Option parsing for the programs the command analysis knows: tells operands from option values the
 * way getopt would, so a file given as `-o out` is not mistaken for an input.
 */
import { type Arg, sliceArg } from './shell-words.js';

/** How a program's options take values, so operands are told apart from option values. */
export interface ArgSpec {
  /** Short option letters that take a value (`-t DIR`, `-tDIR`). */
  short?: string;
  /** Long option names that take a value as the next word (`--target-directory DIR`); `--x=v` always works. */
  long?: readonly string[];
  /** The first operand ends the options (wrappers: the rest is the command). */
  stopAtOperand?: boolean;
}

export interface ParsedArgs {
  /** `-x` and `--name` (long names completed when an unambiguous prefix of one in the spec). */
  flags: Set<string>;
  values: Map<string, Arg[]>;
  operands: Arg[];
}

/** Splits arguments into options and operands the way getopt does (`--` ends options). */
export function parseArgs(args: readonly Arg[], spec: ArgSpec = {}): ParsedArgs {
  const flags = new Set<string>();
  const values = new Map<string, Arg[]>();
  const operands: Arg[] = [];
  const add = (key: string, value: Arg): void => {
    values.set(key, [...(values.get(key) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const text = arg.text;
    if (arg.dynamic || !text.startsWith('-') || text === '-') {
      operands.push(arg);
      if (spec.stopAtOperand) {
        operands.push(...args.slice(i + 1));
        break;
      }
      continue;
    }
    if (text === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const given = eq === -1 ? text.slice(2) : text.slice(2, eq);
      const candidates = spec.long?.filter((name) => name.startsWith(given)) ?? [];
      const name = spec.long?.includes(given) ? given : candidates.length === 1 ? candidates[0]! : given;
      flags.add(`--${name}`);
      if (eq !== -1) add(`--${name}`, sliceArg(arg, eq + 1));
      else if (spec.long?.includes(name) && i + 1 < args.length) add(`--${name}`, args[++i]!);
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const letter = text[j]!;
      flags.add(`-${letter}`);
      if (spec.short?.includes(letter)) {
        if (j + 1 < text.length) add(`-${letter}`, sliceArg(arg, j + 1));
        else if (i + 1 < args.length) add(`-${letter}`, args[++i]!);
        break;
      }
    }
  }
  return { flags, values, operands };
}

/** The values given to any of `keys` (`-t`, `--target-directory`…). */
export function valuesOf(parsed: ParsedArgs, ...keys: string[]): Arg[] {
  return keys.flatMap((key) => parsed.values.get(key) ?? []);
}

export function hasFlag(parsed: ParsedArgs, ...keys: string[]): boolean {
  return keys.some((key) => parsed.flags.has(key));
}
