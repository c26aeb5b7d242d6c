import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../types/errors.js';
import { errorCode } from '../util/guards.js';

/**
 * The folders whose files an MCP client may name: the folder `massgen mcp` runs in, and each
 * `--allow-path DIR`. A client is a program (a coding agent, or anyone with the HTTP token), not the
 * user: a config, an attachment or a context path it names is read by this process and shown to
 * models, so it must not reach `/etc/shadow`, `~/.ssh` or the user's other projects. Paths are
 * compared as real paths, so a symbolic link inside the folder that points out is refused too.
 */
export class AllowedFolders {
  /** Each folder as given (absolute) and as its real path. */
  private readonly roots: { given: string; real: string }[];

  /**
   * @throws {ConfigError} when an allowed folder does not exist.
   */
  constructor(
    private readonly cwd: string,
    extra: readonly string[] = [],
  ) {
    this.roots = [cwd, ...extra].map((folder) => {
      const given = path.resolve(cwd, folder);
      try {
        return { given, real: realpathSync(given) };
      } catch (error) {
        throw new ConfigError(
          `--allow-path ${folder}: ${errorCode(error) === 'ENOENT' ? 'not found' : 'cannot be read'}`,
          {
            hint: 'give a folder that exists',
          },
        );
      }
    });
  }

  /** The folders, for messages. */
  get folders(): string[] {
    return this.roots.map((root) => root.given);
  }

  private refusal(what: string, given: string, why: string): ConfigError {
    return new ConfigError(`${what} "${given}" is refused: ${why}`, {
      hint: `name a file inside ${this.roots.map((r) => r.given).join(' or ')}, or start massgen mcp with --allow-path DIR to let clients use files in DIR`,
    });
  }

  /** True when `file` is an allowed folder or lies inside one (`kind`: as given or as real paths). */
  private inside(file: string, kind: 'given' | 'real'): boolean {
    return this.roots.some((root) => {
      const relative = path.relative(root[kind], file);
      return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
    });
  }

  /** True when `given` (relative to the server's folder) names a place inside an allowed folder, before links. */
  within(given: string): boolean {
    const absolute = path.resolve(this.cwd, given);
    return this.inside(absolute, 'given') || this.inside(absolute, 'real');
  }

  /**
   * The real path of `given` (relative to the server's folder) when it is inside an allowed folder;
   * a path that does not exist (yet) comes back as it is, for the reader to report as missing.
   *
   * @throws {ConfigError} naming `what` (`attachment`, `config`…) for a path outside every allowed
   * folder, or one that leads out through a symbolic link. Whether such a file exists is not said.
   */
  resolve(given: string, what: string): string {
    const absolute = path.resolve(this.cwd, given);
    if (!this.within(given))
      throw this.refusal(
        what,
        given,
        `it is outside the folder${this.roots.length > 1 ? 's' : ''} massgen mcp serves`,
      );
    // A missing file is judged by the nearest folder above it that exists: a link there may lead out.
    let existing = absolute;
    let real: string | undefined;
    while (real === undefined) {
      try {
        real = realpathSync(existing);
      } catch (error) {
        const code = errorCode(error);
        if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(existing) === existing)
          throw this.refusal(what, given, 'it cannot be read');
        existing = path.dirname(existing);
      }
    }
    if (!this.inside(real, 'real'))
      throw this.refusal(
        what,
        given,
        'it leads outside the folder massgen mcp serves (through a symbolic link)',
      );
    return existing === absolute ? real : absolute;
  }
}
