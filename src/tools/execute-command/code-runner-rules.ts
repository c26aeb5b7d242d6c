/**
 * Programs that run other code: shells, wrappers whose remaining arguments are a command, and
 * interpreters. The analysis follows the command or script they run, or treats their code as opaque.
 */
import type { ArgSpec } from './parse-args.js';

export const SHELLS = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'ash',
  'rbash',
  'yash',
  'posh',
  'lksh',
]);

/** Wrappers whose remaining arguments are a command: how their own options take values. */
export const WRAPPERS: Record<string, ArgSpec & { skipOperands?: number }> = {
  nice: { short: 'n', long: ['adjustment'], stopAtOperand: true },
  nohup: { stopAtOperand: true },
  timeout: { short: 'sk', long: ['signal', 'kill-after'], stopAtOperand: true, skipOperands: 1 },
  stdbuf: { short: 'ioe', long: ['input', 'output', 'error'], stopAtOperand: true },
  ionice: { short: 'cnp', long: ['class', 'classdata', 'pid', 'pgid', 'uid'], stopAtOperand: true },
  chrt: { stopAtOperand: true, skipOperands: 1 },
  taskset: { short: 'c', long: ['cpu-list'], stopAtOperand: true, skipOperands: 1 },
  time: { short: 'fo', long: ['format', 'output'], stopAtOperand: true },
  unbuffer: { stopAtOperand: true },
  busybox: { stopAtOperand: true },
  caffeinate: { stopAtOperand: true },
  fakeroot: { stopAtOperand: true },
  catchsegv: { stopAtOperand: true },
  strace: { short: 'eoOpPsSuUXbIa', stopAtOperand: true },
  ltrace: { short: 'eoOpPsSuUXbIan', stopAtOperand: true },
  valgrind: { stopAtOperand: true },
  proxychains: { short: 'f', stopAtOperand: true },
  torsocks: { stopAtOperand: true },
  xvfb_run: { stopAtOperand: true },
};

/**
 * Interpreters. Values of their options are code or module names (never checked as files); `program`
 * lists the options that give the program, so that no script file comes first among the operands.
 * `inPlace`: `-i` edits the operand files.
 */

export const INTERPRETERS: Record<string, ArgSpec & { program: readonly string[]; inPlace?: boolean }> = {
  python: { short: 'cmWXQ', program: ['-c', '-m'], stopAtOperand: true },
  python2: { short: 'cmWXQ', program: ['-c', '-m'], stopAtOperand: true },
  python3: { short: 'cmWX', program: ['-c', '-m'], stopAtOperand: true },
  pypy: { short: 'cmWX', program: ['-c', '-m'], stopAtOperand: true },
  pypy3: { short: 'cmWX', program: ['-c', '-m'], stopAtOperand: true },
  node: {
    short: 'eprC',
    long: ['eval', 'print', 'require', 'import', 'input-type', 'conditions', 'loader', 'experimental-loader'],
    program: ['-e', '--eval', '-p', '--print'],
    stopAtOperand: true,
  },
  nodejs: {
    short: 'eprC',
    long: ['eval', 'print', 'require'],
    program: ['-e', '--eval', '-p', '--print'],
    stopAtOperand: true,
  },
  bun: { short: 'e', long: ['eval', 'print'], program: ['-e', '--eval', '--print'] },
  perl: { short: 'eEMmIlx0', program: ['-e', '-E'], inPlace: true, stopAtOperand: true },
  ruby: { short: 'eIrCEFKT', program: ['-e'], inPlace: true, stopAtOperand: true },
  php: { short: 'rdBRFEc', program: ['-r', '-B', '-R', '-F', '-E'], stopAtOperand: true },
  Rscript: { short: 'e', program: ['-e'], stopAtOperand: true },
  lua: { short: 'el', program: ['-e'], stopAtOperand: true },
  osascript: { short: 'el', program: ['-e'] },
};
