import { randomBytes } from 'node:crypto';
import { mkdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Phase } from '../types/events.js';
import type { VisibleAnswer, WorkspaceHooks } from '../types/workspace.js';
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
}

export interface RunWorkspacesOptions {
  /** The project's `.massgen` folder. */
  massgenDir: string;
  agents: readonly WorkspaceAgent[];
  contextPaths?: readonly ContextPathInfo[];
  /** The previous turn's winning workspace in a session: read-only for everyone. */
  previousWorkspace?: string | null;
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
  ) {}

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
    return new RunWorkspaces(
      places,
      path.join(massgen, 'snapshots', runKey),
      new Map(options.agents.map((a) => [a.agentId, a.anonymousId])),
      options.contextPaths ?? [],
      options.previousWorkspace ?? null,
    );
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
    if (this.contextPaths.length > 0) {
      const paths = this.contextPaths.map((c) => {
        const writable = phase === 'presentation' && c.permission === 'write';
        const protectedNote =
          writable && c.protectedPaths.length > 0 ? `; never write ${c.protectedPaths.join(', ')}` : '';
        return `- ${c.path} (${writable ? `you may write here now${protectedNote}` : 'read-only'})`;
      });
      const rule =
        phase === 'coordination'
          ? 'They are read-only while the agents coordinate; only the final presenter may write to those marked writable.'
          : 'You are the final presenter: write the deliverable where it belongs.';
      lines.push(`Context paths (the user's own folders): ${rule}\n${paths.join('\n')}`);
    }
    if (this.previousWorkspace) {
      lines.push(`The result of the previous turn (read-only): ${this.previousWorkspace}`);
    }
    return lines.join('\n');
  }

  async snapshot(agentId: string, label: string): Promise<void> {
    const places = this.places.get(agentId);
    if (!places) return;
    await copySnapshot(places.workspace, path.join(this.snapshotsDir, label));
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

  /** Removes the run's snapshots and the peers' copies; the workspaces themselves stay for inspection. */
  async dispose(): Promise<void> {
    await rm(this.snapshotsDir, { recursive: true, force: true });
    for (const places of this.places.values()) await rm(places.peers, { recursive: true, force: true });
  }
}
