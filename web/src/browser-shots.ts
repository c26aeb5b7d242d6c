import type { AgentStream } from './run-view.js';

/** One agent's latest browser screenshot: its path in the agent's workspace and the action's call id. */
export interface BrowserShot {
  agentId: string;
  path: string;
  callId: string;
  /** The image's hash when the tool recorded it as media: shown from `/media` (replays too). */
  sha256?: string;
}

/**
 * The latest `browser_screenshot` of each agent, from its transcript: the image the tool recorded as
 * media, or (tools that record none) the path its result starts with (`screenshot: <path in the
 * workspace>`). Agents that took none are left out.
 */
export function latestScreenshots(streams: Readonly<Record<string, AgentStream | undefined>>): BrowserShot[] {
  const shots: BrowserShot[] = [];
  for (const stream of Object.values(streams)) {
    if (!stream) continue;
    const calls = stream.turns.flatMap((turn) => turn.tools);
    for (const call of [...calls].reverse()) {
      if (call.toolName !== 'browser_screenshot' || call.isError || call.result === null) continue;
      const image = call.media?.find((m) => m.kind === 'image');
      if (image) {
        shots.push({
          agentId: stream.agentId,
          path: image.path ?? image.name,
          callId: call.callId,
          sha256: image.sha256,
        });
        break;
      }
      const match = /^screenshot: (\S+)/.exec(call.result);
      if (!match) continue;
      shots.push({ agentId: stream.agentId, path: match[1]!, callId: call.callId });
      break;
    }
  }
  return shots;
}
