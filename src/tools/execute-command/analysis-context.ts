/**
 * The vocabulary shared by every part of the command analysis: what a piece of the command knows
 * (folders, variables, functions), how it ends, how a refusal travels, the limits that keep the
 * analysis finite, and the {@link Analysis} the per-construct modules call back into.
 */
import type { Phase } from '../../types/events.js';
import type { CheckPath } from '../permissions/path-policy.js';
import type { PathChecker } from './path-checker.js';
import type { Command, List, WordPart, Word } from './shell-ast.js';
import type { Arg, Ch } from './shell-words.js';

export interface CommandPolicyOptions {
  /** The agent's workspace (absolute, real): the command's starting folder and HOME. */
  workspace: string;
  checkPath: CheckPath;
  phase: Phase;
  /** Variables the command starts with (already scrubbed); their values are known to the analysis. */
  env?: Readonly<Record<string, string>>;
  /** Docker mode: where the workspace appears inside the container (`/workspace`); mapped back for checks. */
  containerWorkspace?: string;
}

/** Thrown anywhere in the analysis to stop it; the message is shown to the model. */
export class Refusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function refuse(reason: string): never {
  throw new Refusal(reason);
}

/** A current folder the analysis cannot know (only in lenient analysis of script files). */
export const UNKNOWN = '\u0000unknown';
/** A variable holding a number (or other text without `/`), value unknown. */
export const SAFE = Symbol('safe');
export type Value = string | null | typeof SAFE | { any: string[] };
export type Cwds = readonly string[];

/** What the shell running a piece of the command knows. */
export interface Shell {
  vars: Map<string, Value>;
  /** `$1`…; null: unknown. */
  positional: (string | null)[] | null;
  functions: Map<string, Command>;
  /** IFS was changed: unquoted variables may split anywhere. */
  ifsChanged: boolean;
  /** A nameref exists (lenient analysis only): any assignment may change any variable. */
  namerefs: boolean;
}

export interface Frame {
  /** Refuse what cannot be followed (the command itself); lenient for script files read from disk. */
  strict: boolean;
  /** This command certainly runs when the whole command runs (for tracking variables). */
  definite: boolean;
  /** Its standard input is a pipe. */
  stdinPipe: boolean;
  /** Functions being expanded (recursion). */
  inlining: readonly string[];
  /** Nesting of eval, bash -c, scripts. */
  depth: number;
}

export interface Ctx {
  cwds: Cwds;
  sh: Shell;
  f: Frame;
}

/** The possible current folders after a command succeeded or failed. */
export interface Outcome {
  ok: Cwds;
  fail: Cwds;
}

export type Stdin =
  { kind: 'none' } | { kind: 'pipe' } | { kind: 'text'; text: string | null } | { kind: 'file'; arg: Arg };

/** How a program is started: what its standard input is, and whether a shell function may answer to its name. */
export interface Invocation {
  stdin: Stdin;
  functions: boolean;
}

/** Code kept as text to analyse once the command has been walked (traps, aliases, command variables). */
export interface DeferredCode {
  text: string;
  what: string;
  strict: boolean;
}

export const MAX_DEPTH = 12;
export const MAX_STEPS = 20_000;
export const MAX_GLOB_MATCHES = 2_000;
export const MAX_SCRIPT_BYTES = 256 * 1024;
export const MAX_LOOP_PASSES = 4;

export const unique = (...lists: Cwds[]): Cwds => [...new Set(lists.flat())];
export const same = (cwds: Cwds): Outcome => ({ ok: cwds, fail: cwds });
export const quote = (text: string): string =>
  JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);

/**
 * One analysis of one command: the facts gathered across all its parts, and the recursive steps
 * (walking lists, expanding words, running programs) that the per-construct modules call back into.
 * Going through this interface keeps those modules free of runtime import cycles.
 */
export interface Analysis {
  readonly options: CommandPolicyOptions;
  /** HOME as the command sees it (the workspace). */
  readonly home: string;
  readonly paths: PathChecker;
  /** Every folder the command may be in at some point (for code that runs later, and `cd -`). */
  readonly allCwds: Set<string>;
  readonly deferred: DeferredCode[];
  readonly functionsDefined: Map<string, { body: Command; strict: boolean }>;
  /** Functions analysed where they are called; the others are analysed on their own at the end. */
  readonly functionsInlined: Set<string>;
  /** Arithmetic is evaluated somewhere (it runs `$(…)` found in variable values). */
  arithmetic: boolean;
  /** A variable was given text containing `$(…)` or backticks. */
  suspiciousValue: boolean;
  /** Counts one step of work; refuses once the command is too large to check. */
  tick(): void;
  list(list: List, ctx: Ctx): Promise<Outcome>;
  command(command: Command, ctx: Ctx): Promise<Outcome>;
  invoke(args: Arg[], ctx: Ctx, io: Invocation): Promise<Outcome>;
  expand(word: Word, ctx: Ctx): Promise<Arg[]>;
  chars(parts: readonly WordPart[], ctx: Ctx): Promise<Ch[]>;
}
