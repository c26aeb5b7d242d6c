/** Test helpers shared by the computer tools' tests (excluded from the build, like every `*.test-support.ts`). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import type { ToolContext } from '../../types/tool.js';
import { findExecutable } from '../../util/find-executable.js';
import type { ToolProvider } from '../tool-provider.js';
import { createComputerToolProvider, type ComputerToolOptions } from './computer-tool-provider.js';

/** The programs these tests need that this machine lacks, for a skip reason (empty: none). */
export function missingPrograms(...names: string[]): string {
  return names.filter((name) => !findExecutable(name, process.env.PATH)).join(', ');
}

/**
 * The test's X application: a white window with a button "Go"; clicking it replaces the window by a
 * red one titled "after". Without a window manager the geometry is exact: "Go" sits at 5..27, 58..75.
 */
export const CLICK_APP = [
  'xmessage -geometry 160x80+0+0 -title before -bg white -fg black -buttons Go:0 hello &&',
  '  exec xmessage -geometry 160x80+0+0 -title after -bg red -fg black -buttons Done:0 clicked',
].join('\n');

export const testContext = (signal: AbortSignal = new AbortController().signal): ToolContext => ({
  agentId: 'a',
  phase: 'coordination',
  signal,
});

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A started 320×200 desktop with a fresh workspace holding `app.sh` (the click app), closed when the
 * test ends (tests that check the close call it themselves; a second close does nothing). Programs
 * it launches run unsandboxed unless `options.sandbox` says otherwise.
 */
export async function startTestDesktop(
  options: Partial<Omit<ComputerToolOptions, 'workspace' | 'sandbox'>> & {
    sandbox?: (workspace: string) => ComputerToolOptions['sandbox'];
  } = {},
): Promise<{ provider: ToolProvider; workspace: string }> {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'computer-ws-'));
  dirs.push(workspace);
  writeFileSync(path.join(workspace, 'app.sh'), CLICK_APP);
  const { sandbox, ...rest } = options;
  const provider = createComputerToolProvider({
    width: 320,
    height: 200,
    xvfb: findExecutable('Xvfb', process.env.PATH)!,
    xdotool: findExecutable('xdotool', process.env.PATH)!,
    env: process.env,
    ...rest,
    workspace,
    sandbox: sandbox ? sandbox(workspace) : 'unsandboxed',
  });
  await provider.start({ signal: new AbortController().signal, report: () => {} });
  onTestFinished(() => provider.close());
  return { provider, workspace };
}
