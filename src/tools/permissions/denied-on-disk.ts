import { existsSync, lstatSync, readdirSync, realpathSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { loadPicomatch } from '../../util/picomatch.js';
import { matchesToolPattern } from '../../util/tool-patterns.js';
import { pathMatcher, readDenial, type AgentRules } from './rules.js';

const scan = (pattern: string) => loadPicomatch().scan(pattern);

/** Where one pattern can match: below `anchor` (where it is matched from), down to `depth` levels. */
interface Search {
  anchor: string;
  /** The folder its literal start names, relative to `anchor` (`secrets` of `secrets/**`). */
  base: string;
  depth: number;
}

const toPosix = (p: string) => p.split(path.sep).join('/');

/**
 * The places a path pattern can match in: `secrets/**` only `secrets` itself (a folder matched is
 * masked whole), `*.pem` one level of each folder, `**\/.env` every level. Relative patterns are
 * anchored at every folder the rules anchor them at, absolute ones at `/`.
 */
function searches(pattern: string, folders: readonly string[]): Search[] {
  const trimmed = pattern === '/' ? '/' : pattern.replace(/^\.\//, '').replace(/\/+$/, '') || '.';
  const { base, glob, isGlob } = scan(trimmed);
  const depth = !isGlob ? 0 : glob.includes('**') || glob.includes('{') ? Infinity : glob.split('/').length;
  if (path.isAbsolute(trimmed)) return [{ anchor: '/', base: base === '' ? '/' : base, depth }];
  return folders.map((anchor) => ({ anchor, base: base === '' ? '.' : base, depth }));
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * What an agent's read-deny rules (see {@link readDenial}) cover on disk right now, as real paths:
 * what its OS sandbox shows empty. Each `deny` rule with a `path` that covers `read_file` is looked
 * for under `folders` (the workspace and the context paths, where relative patterns are anchored) and
 * every match confirmed with the agent's whole rule list, so an earlier `allow` still makes an
 * exception. A folder that matches is masked whole; symbolic links are not followed while looking,
 * but one that matches masks what it leads to. Files created later are not in the list: each sandbox
 * asks when it starts.
 */
export function deniedOnDisk(agent: AgentRules, folders: readonly string[]): string[] {
  const found = new Set<string>();
  const take = (entry: string, link: boolean) => {
    if (readDenial(agent, entry) === null) return false;
    const real = link ? realOrNull(entry) : entry;
    if (real !== null) found.add(real);
    return true;
  };
  for (const list of agent.lists) {
    for (const rule of list.rules) {
      if (rule.action !== 'deny' || !rule.path || !matchesToolPattern('read_file', rule.tool)) continue;
      for (const pattern of rule.path) {
        const matches = pathMatcher(pattern);
        for (const { anchor, base, depth } of searches(pattern, folders)) {
          const start = path.resolve(anchor, base);
          // Matched as the rules match: absolute patterns on the absolute path, others relative to the anchor.
          const shown = (entry: string) =>
            path.isAbsolute(pattern) ? toPosix(entry) : toPosix(path.relative(anchor, entry)) || '.';
          if (!existsSync(start)) continue;
          if (matches(shown(start)) && take(start, lstatSync(start).isSymbolicLink())) continue;
          const walk = (dir: string, name: string, left: number): void => {
            let entries: Dirent[];
            try {
              entries = readdirSync(dir, { withFileTypes: true });
            } catch {
              return;
            }
            for (const dirent of entries) {
              const entry = path.join(dir, dirent.name);
              const entryName =
                name === '.'
                  ? dirent.name
                  : name.endsWith('/')
                    ? name + dirent.name
                    : `${name}/${dirent.name}`;
              if (matches(entryName) && take(entry, dirent.isSymbolicLink())) continue;
              if (dirent.isDirectory() && left > 1) walk(entry, entryName, left - 1);
            }
          };
          if (depth > 0) walk(start, shown(start), depth);
        }
      }
    }
  }
  return [...found];
}
