import type { ChangedFile, EntryKind } from './permission-events.js';

/**
 * The kind of one proposed change in words, the same in every view (the terminal's review prompt, the
 * plain view, the file handshake, the web page): `modified`, `renamed from a.md`, `added: symbolic link
 * → /tmp`, `type changed: folder → symbolic link → /tmp`, `mode changed: now executable`.
 */

const NAMES: Record<EntryKind, string> = {
  file: 'file',
  executable: 'executable file',
  symlink: 'symbolic link',
  folder: 'folder',
  repository: 'git repository of its own',
};

const named = (kind: EntryKind, target: string | undefined) =>
  kind === 'symlink' && target !== undefined ? `symbolic link → ${target}` : NAMES[kind];

const executable = (kind: EntryKind | null | undefined) => kind === 'executable';

export function describeChange(
  file: Pick<ChangedFile, 'status' | 'from' | 'before' | 'after' | 'linkTarget'>,
): string {
  const { before, after, linkTarget } = file;
  const what = (kind: EntryKind | null | undefined) =>
    kind === undefined || kind === null || kind === 'file' || kind === 'executable'
      ? ''
      : `: ${named(kind, linkTarget)}`;
  switch (file.status) {
    case 'added':
      return `added${what(after)}${executable(after) ? ', executable' : ''}`;
    case 'deleted':
      return `deleted${before === 'symlink' ? ': symbolic link' : what(before)}`;
    case 'renamed':
      return `renamed from ${file.from ?? '?'}${modeNote(before, after)}`;
    case 'mode-changed':
      return `mode changed: ${executable(after) ? 'now executable' : 'no longer executable'}`;
    case 'type-changed':
      return `type changed: ${before ? NAMES[before] : '?'} → ${after ? named(after, linkTarget) : '?'}`;
    case 'modified':
      if (after === 'symlink') return `symbolic link retargeted → ${linkTarget ?? '?'}`;
      if (after === 'repository') return 'git repository of its own: its commit changed';
      return `modified${modeNote(before, after)}`;
  }
}

function modeNote(before: EntryKind | null | undefined, after: EntryKind | null | undefined): string {
  if (before === after || before === undefined || after === undefined) return '';
  if (after === 'executable') return ', now executable';
  if (before === 'executable') return ', no longer executable';
  return '';
}

/**
 * Why "all" leaves a change out, and what picking it does: a link out of the folder is applied only when
 * picked by name; a repository of its own never is (its note says so).
 */
export function pickNote(file: Pick<ChangedFile, 'pickOnly' | 'after'>): string | null {
  if (file.pickOnly === undefined) return null;
  return file.after === 'repository'
    ? file.pickOnly
    : `${file.pickOnly}: applied only when picked by name, never by "all"`;
}
