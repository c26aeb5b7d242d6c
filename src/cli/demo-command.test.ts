import { describe, expect, it } from 'vitest';
import { howToCall, onDesktop, parseDemoArgs } from './demo-command.js';

describe('massgen demo arguments', () => {
  it.each([
    [[], { mode: 'terminal', question: 'At what temperature does water boil?', open: true, display: true }],
    [['What', 'is', '6 times 7?'], { mode: 'terminal', question: 'What is 6 times 7?' }],
    [['--web'], { mode: 'web', open: true }],
    [['--web', '--no-open', 'Hi?'], { mode: 'web', open: false, question: 'Hi?' }],
    [['--no-display'], { mode: 'terminal', display: false }],
    [['serve'], { mode: 'serve' }],
    [['serve', 'me', 'tea'], { mode: 'terminal', question: 'serve me tea' }],
  ])('%j', (argv, expected) => {
    expect(parseDemoArgs(argv)).toMatchObject(expected);
  });

  it('takes no option that would widen its servers: --host, --port, --no-auth, keys', () => {
    for (const option of ['--host', '--port', '--no-auth', '--api-key', '--auth-token'])
      expect(() => parseDemoArgs(['--web', option, 'x'])).toThrow(/unknown option/);
    expect(() => parseDemoArgs(['serve', '--web'])).toThrow(
      /either massgen demo serve or massgen demo --web/,
    );
  });
});

describe('onDesktop', () => {
  it.each([
    ['linux', {}, false],
    ['linux', { DISPLAY: ':0' }, true],
    ['linux', { WAYLAND_DISPLAY: 'wayland-0' }, true],
    ['freebsd', { DISPLAY: ':0' }, true],
    ['darwin', {}, true],
    ['darwin', { SSH_CONNECTION: '10.0.0.1 5000 10.0.0.2 22' }, false],
    ['win32', {}, true],
    ['win32', { SSH_TTY: '/dev/pts/1' }, false],
  ] as const)('%s %j → %s', (platform, env, expected) => {
    expect(onDesktop(env, platform)).toBe(expected);
  });
});

describe('howToCall', () => {
  it('a curl line and both openai packages, with the base URL and key', () => {
    const text = howToCall({ url: 'http://127.0.0.1:5555/v1', apiKey: 'KEY123' });
    expect(text).toContain(
      `curl -s http://127.0.0.1:5555/v1/chat/completions -H 'Authorization: Bearer KEY123' -H 'Content-Type: application/json' -d '{"model":"massgen"`,
    );
    expect(text).toContain("new OpenAI({ baseURL: 'http://127.0.0.1:5555/v1', apiKey: 'KEY123' })");
    expect(text).toContain("OpenAI(base_url='http://127.0.0.1:5555/v1', api_key='KEY123')");
  });
});
