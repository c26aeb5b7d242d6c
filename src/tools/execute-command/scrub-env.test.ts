import { describe, expect, it } from 'vitest';
import { DEFAULT_PATH, dockerClientEnv, scrubEnv } from './scrub-env.js';

describe('scrubEnv', () => {
  it('keeps only PATH, LANG, LC_*, TERM and TZ, and sets HOME and TMPDIR', () => {
    const env = scrubEnv(
      {
        PATH: '/usr/bin:relative/bin::/bin',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        TERM: 'xterm',
        TZ: 'UTC',
        USER: 'me',
        SSH_AUTH_SOCK: '/tmp/agent',
        OPENAI_API_KEY: 'sk-1',
        LC_TOKEN: 'x',
        UNSET: undefined,
      },
      { home: '/ws', tmpdir: '/ws/.tmp' },
    );
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TERM: 'xterm',
      TZ: 'UTC',
      HOME: '/ws',
      TMPDIR: '/ws/.tmp',
    });
  });

  it('falls back to a standard PATH', () => {
    expect(scrubEnv({}, { home: '/ws', tmpdir: '/ws/.tmp' }).PATH).toBe(DEFAULT_PATH);
  });
});

describe('dockerClientEnv', () => {
  it('passes what the docker client needs, never secrets', () => {
    expect(
      dockerClientEnv({
        PATH: '/usr/bin',
        HOME: '/home/me',
        DOCKER_HOST: 'unix:///run/docker.sock',
        DOCKER_PASSWORD: 'x',
        GITHUB_TOKEN: 'y',
        EDITOR: 'vim',
      }),
    ).toEqual({ PATH: '/usr/bin', HOME: '/home/me', DOCKER_HOST: 'unix:///run/docker.sock' });
  });
});
