import { randomBytes } from 'node:crypto';
import { mkdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Phase } from '../types/events.js';
import type { ConcludeContext, VisibleAnswer, WorkspaceHooks } from '../types/workspace.js';
import { ContextIsolation, type IsolationSpec, type Reviewer } from './context-isolation.js';
import { copySnapshot } from './copy-tree.js';

/** One agent of the run, and its workspace name (`backend.cwd`), if it has one. */
export interface WorkspaceAgent {
  agentId: string;
  anonymousId: string;
  cwd: string | null;
}

/** A context path as the agents are told about it (already checked and resolved by the app). */
export interface ContextPathInfo {
  path: string;
  permission: 'read' | 'write';
  protectedPaths: readonly string[];
  /** `write_mode` of a `write` path; `worktree` and `isolated` give each agent its own copy. */
  writeMode?: 'direct' | 'worktree' | 'isolated';
  /** Set on an agent's own copy of an isolated path: writable in every phase. */
  ownCopy?: boolean;
  /** For an agent's own copy: the user's folder it is a copy of. */
  original?: string;
}

export interface RunWorkspacesOptions {
  /** The project's `.massgen` folder. */
  massgenDir: string;
  agents: readonly WorkspaceAgent[];
  contextPaths?: readonly ContextPathInfo[];
  /** The previous turn's winning workspace in a session: read-only for everyone. */
  previousWorkspace?: string | null;
  /**
   * Context paths to isolate (`write_mode: worktree` / `isolated`): every agent with a workspace gets its
   * own checkout of each; the winner's changes go through `reviewer`. `keep`: `--keep-worktrees`.
   */
  isolation?: { specs: readonly IsolationSpec[]; reviewer: Reviewer; keep?: boolean } | null;
}

interface AgentPlaces {
  agent: WorkspaceAgent;
  /** Real path of `.massgen/workspaces/<cwd>`. */
  workspace: string;
  /** `.massgen/temp_workspaces/<anonymous id>`: the peers' files this agent sees. */
  peers: string;
  /** What the agent sees now, per author anonymous id: the label of the snapshot shown. */
  shown: Map<string, string>;
}

/**
 * The workspaces of one run (see docs/workspaces.md): each agent with a `cwd` works in
 * `.massgen/workspaces/<cwd>/`, kept for the whole run; each accepted answer snapshots it into
 * `.massgen/snapshots/<run>/<label>/`; every other agent sees the snapshots of the answers in its view,
 * read-only, under `.massgen/temp_workspaces/<viewer>/<author's anonymous id>/`.
 */
export class RunWorkspaces implements WorkspaceHooks {
  private constructor(
    private readonly places: ReadonlyMap<string, AgentPlaces>,
    private readonly snapshotsDir: string,
    private readonly anonymousIds: ReadonlyMap<string, string>,
    readonly contextPaths: readonly ContextPathInfo[],
    readonly previousWorkspace: string | null,
    private readonly isolation: { paths: ContextIsolation; reviewer: Reviewer } | null,
  ) {}

  /** Where the winner's whole patches go (the log folder), once it exists. */
  diffDir: string | null = null;

  /**
   * Creates the folders. A workspace left by an earlier run is emptied: its result lives on in that
   * run's log folder.
   */
  static async create(options: RunWorkspacesOptions): Promise<RunWorkspaces> {
    const massgen = path.resolve(options.massgenDir);
    const runKey = `${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}_${randomBytes(3).toString('hex')}`;
    const places = new Map<string, AgentPlaces>();
    for (const agent of options.agents) {
      if (agent.cwd === null) continue;
      const workspace = path.join(massgen, 'workspaces', agent.cwd);
      const peers = path.join(massgen, 'temp_workspaces', agent.anonymousId);
      await rm(workspace, { recursive: true, force: true });
      await rm(peers, { recursive: true, force: true });
      await mkdir(workspace, { recursive: true });
      await mkdir(peers, { recursive: true });
      places.set(agent.agentId, {
        agent,
        workspace: await realpath(workspace),
        peers: await realpath(peers),
        shown: new Map(),
      });
    }
    const wanted = options.isolation;
    const isolation =
      wanted && wanted.specs.length > 0
        ? {
            paths: await ContextIsolation.create({
              massgenDir: massgen,
              runKey,
              specs: wanted.specs,
              agentIds: [...places.keys()],
              keep: wanted.keep ?? false,
            }),
            reviewer: wanted.reviewer,
          }
        : null;
    return new RunWorkspaces(
      places,
      path.join(massgen, 'snapshots', runKey),
      new Map(options.agents.map((a) => [a.agentId, a.anonymousId])),
      options.contextPaths ?? [],
      options.previousWorkspace ?? null,
      isolation,
    );
  }

  /**
   * The context paths as one agent sees them: an isolated path is replaced by the agent's own checkout
   * of it (writable in every phase, its protected paths carried over).
   */
  contextPathsOf(agentId: string): ContextPathInfo[] {
    const views = this.isolation?.paths.viewsOf(agentId) ?? [];
    return this.contextPaths.map((context) => {
      const view = views.find((v) => v.original === context.path);
      if (!view) return context;
      return {
        path: view.view,
        permission: 'write',
        protectedPaths: view.protectedPaths,
        writeMode: context.writeMode ?? 'worktree',
        ownCopy: true,
        original: context.path,
      };
    });
  }

  /** True when at least one agent has a workspace. */
  get active(): boolean {
    return this.places.size > 0;
  }

  /** The agent's workspace (real path), or null. */
  workspaceOf(agentId: string): string | null {
    return this.places.get(agentId)?.workspace ?? null;
  }

  /** Where the agent sees its peers' files (real path), or null. */
  peersDirOf(agentId: string): string | null {
    return this.places.get(agentId)?.peers ?? null;
  }

  describe(agentId: string, phase: Phase): string | null {
    const places = this.places.get(agentId);
    if (!places) return null;
    const lines = [
      `WORKSPACE: ${places.workspace} is your workspace. Relative paths in your file tools resolve there, and your files stay there for the whole task. When you submit an answer, a snapshot of your workspace goes with it for the other agents to see.`,
      `Files of the other agents' answers: ${places.peers}/<agent id>/ holds the files of that agent's answer (read-only; copy_file brings what you need into your workspace).`,
    ];
    const contextPaths = this.contextPathsOf(agentId);
    if (contextPaths.length > 0) {
      const paths = contextPaths.map((c) => {
        if (c.ownCopy) {
          const protectedNote =
            c.protectedPaths.length > 0 ? `; never write ${c.protectedPaths.join(', ')}` : '';
          return `- ${c.path} (your own checkout of the user's ${c.original}: write here in every phase${protectedNote}; when the task is done the final answer's changes are shown to the user and applied to ${c.original})`;
        }
        const writable = phase === 'presentation' && c.permission === 'write';
        const protectedNote =
          writable && c.protectedPaths.length > 0 ? `; never write ${c.protectedPaths.join(', ')}` : '';
        return `- ${c.path} (${writable ? `you may write here now${protectedNote}` : 'read-only'})`;
      });
      const rule =
        phase === 'coordination'
          ? `They are read-only while the agents coordinate${contextPaths.some((c) => c.ownCopy) ? ' (except your own checkouts)' : ''}; only the final presenter may write to those marked writable.`
          : 'You are the final presenter: write the deliverable where it belongs.';
      lines.push(`Context paths (the user's own folders): ${rule}\n${paths.join('\n')}`);
      if (contextPaths.some((c) => c.ownCopy)) {
        lines.push(
          `Each answer's changes to those checkouts are in ${places.peers}/<agent id>/massgen-changes/ as a diff. Do not commit or switch branches in your checkout: massgen records your changes itself.`,
        );
      }
    }
    if (this.previousWorkspace) {
      lines.push(`The result of the previous turn (read-only): ${this.previousWorkspace}`);
    }
    return lines.join('\n');
  }

  async snapshot(agentId: string, label: string): Promise<void> {
    const places = this.places.get(agentId);
    if (!places) return;
    const folder = path.join(this.snapshotsDir, label);
    await copySnapshot(places.workspace, folder);
    // Changes to isolated context paths travel with the answer, as a diff peers can read.
    await this.isolation?.paths.writeChanges(agentId, label, folder);
  }

  async conclude(context: ConcludeContext): Promise<void> {
    if (!this.isolation) return;
    await this.isolation.paths.conclude(context, this.isolation.reviewer, this.diffDir);
  }

  /** The isolated context paths of this run, or null. */
  get isolatedPaths(): ContextIsolation | null {
    return this.isolation?.paths ?? null;
  }

  async showPeers(viewerId: string, answers: readonly VisibleAnswer[]): Promise<void> {
    const viewer = this.places.get(viewerId);
    if (!viewer) return;
    for (const answer of answers) {
      if (answer.agentId === viewerId || !this.places.has(answer.agentId)) continue;
      if (viewer.shown.get(answer.anonymousId) === answer.label) continue;
      await copySnapshot(
        path.join(this.snapshotsDir, answer.label),
        path.join(viewer.peers, answer.anonymousId),
      );
      viewer.shown.set(answer.anonymousId, answer.label);
    }
  }

  rewrite(content: string, authorId: string, viewerId: string): string {
    const author = this.places.get(authorId);
    const viewer = this.places.get(viewerId);
    const anonymousId = this.anonymousIds.get(authorId);
    if (!author || !viewer || !anonymousId) return content;
    return content.split(author.workspace).join(path.join(viewer.peers, anonymousId));
  }

  /** Copies the winner's workspace to `destination` (the run's deliverable); null when it has none. */
  async deliver(winnerId: string, destination: string): Promise<string | null> {
    const places = this.places.get(winnerId);
    if (!places) return null;
    await copySnapshot(places.workspace, destination);
    return destination;
  }

  /**
   * Removes the run's snapshots, the peers' copies and the checkouts of isolated context paths (with
   * their branches, unless kept); the workspaces themselves stay for inspection.
   */
  async dispose(): Promise<void> {
    await this.isolation?.paths.dispose();
    await rm(this.snapshotsDir, { recursive: true, force: true });
    for (const places of this.places.values()) await rm(places.peers, { recursive: true, force: true });
  }
}
