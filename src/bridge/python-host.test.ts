import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PythonError, PythonHost } from './python-host.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
const noPython = hasPython ? '' : ' (skipped: python3 is not on PATH)';

const dir = mkdtempSync(path.join(tmpdir(), 'massgen-python-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!hasPython)(`PythonHost${noPython}`, () => {
  it('describes functions from type hints, defaults and the Args: section, as MassGen does', async () => {
    const file = path.join(dir, 'kinds.py');
    writeFileSync(
      file,
      `from typing import List, Literal, Optional

def search(query: str, limit: Optional[int] = None, tags: List[str] = [], mode: Literal["fast", "deep"] = "fast", ratio: float = 0.5, anything=None):
    """Search the notes.

    Longer text that is not part of the summary.

    Args:
        query: What to look for,
            over two lines.
        mode (str): How hard to look.

    Returns:
        The hits.
    """
    return [query, limit, tags, mode, ratio]
`,
    );
    const host = new PythonHost({ cwd: dir, env: process.env });
    try {
      const [described] = await host.load(file, ['search']);
      expect(described).toEqual({
        function: 'search',
        description: 'Search the notes. Longer text that is not part of the summary.',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'What to look for, over two lines.' },
            limit: { type: 'integer', default: null },
            tags: { type: 'array', items: { type: 'string' }, default: [] },
            mode: { enum: ['fast', 'deep'], description: 'How hard to look.', default: 'fast' },
            ratio: { type: 'number', default: 0.5 },
            anything: { default: null },
          },
          required: ['query'],
        },
      });
      expect(await host.call(file, 'search', { query: 'x', tags: ['a'] })).toBe(
        '["x", null, ["a"], "fast", 0.5]',
      );
      await expect(host.load(file, ['nope'])).rejects.toBeInstanceOf(PythonError);
    } finally {
      await host.close();
    }
  });

  it('runs calls concurrently, and an abandoned async call is cancelled in Python', async () => {
    const file = path.join(dir, 'timing.py');
    writeFileSync(
      file,
      `import asyncio
arrived = 0

async def meet(count: int) -> str:
    """Returns met once count calls are in at the same time (alone if they never are)."""
    global arrived
    arrived += 1
    for _ in range(200):
        if arrived >= count:
            return "met"
        await asyncio.sleep(0.01)
    return "alone"

async def wait(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return f"waited {seconds}"
`,
    );
    const host = new PythonHost({ cwd: dir, env: process.env });
    try {
      const results = await Promise.all([1, 2, 3].map(() => host.call(file, 'meet', { count: 3 })));
      expect(results).toEqual(['met', 'met', 'met']);
      const controller = new AbortController();
      const call = host.call(file, 'wait', { seconds: 30 }, controller.signal);
      setTimeout(() => controller.abort(new Error('tool timed out')), 50);
      await expect(call).rejects.toThrow('tool timed out');
      expect(await host.call(file, 'wait', { seconds: 0 })).toBe('waited 0');
    } finally {
      await host.close();
    }
  });
  it('ends a host that writes anything but the protocol, and says what it wrote', async () => {
    const impostor = path.join(dir, 'impostor.sh');
    writeFileSync(impostor, '#!/bin/sh\necho "this is not JSON"\nsleep 30\n', { mode: 0o755 });
    const host = new PythonHost({ python: impostor, cwd: dir, env: process.env, restarts: 0 });
    try {
      await expect(host.request({ op: 'load', path: 'x.py', functions: [] })).rejects.toThrow(
        /not the protocol: this is not JSON/,
      );
      await expect(host.request({ op: 'load', path: 'x.py', functions: [] })).rejects.toThrow(
        /for the rest of this run/,
      );
    } finally {
      await host.close();
    }
  });

  it('kill() ends a hung request without using up a restart', async () => {
    const file = path.join(dir, 'sleepy.py');
    // Hangs with no clock involved: under faketime (CI's second pass) time.sleep can fail with EINVAL.
    writeFileSync(
      file,
      'import threading\n\ndef nap():\n    threading.Event().wait()\n\ndef hello():\n    return "hi"\n',
    );
    const host = new PythonHost({ cwd: dir, env: process.env, restarts: 0 });
    try {
      const controller = new AbortController();
      const hung = host.call(file, 'nap', {}, controller.signal);
      setTimeout(() => {
        host.kill();
        controller.abort(new Error('timed out'));
      }, 200);
      await expect(hung).rejects.toThrow(/timed out/);
      const first = host.generation;
      await expect(host.call(file, 'hello', {})).resolves.toBe('hi');
      expect(host.generation).toBe(first + 1);
    } finally {
      await host.close();
    }
  });
});
