import { api } from '../api.js';
import type { AgentStream } from '../run-view.js';

/** The path a `computer_screenshot` result names (`{"screenshot": ".computer/screenshots/001.png", …}`). */
export function screenshotPath(result: string | null): string | null {
  if (result === null) return null;
  try {
    const parsed = JSON.parse(result) as { screenshot?: unknown };
    return typeof parsed.screenshot === 'string' ? parsed.screenshot : null;
  } catch {
    return null;
  }
}

/** The agent's latest screenshot of its virtual desktop (`tools.computer`), from its transcript. */
export function latestScreenshot(stream: AgentStream | undefined): string | null {
  for (const turn of [...(stream?.turns ?? [])].reverse()) {
    for (const tool of [...turn.tools].reverse()) {
      if (tool.toolName !== 'computer_screenshot' || tool.isError) continue;
      const found = screenshotPath(tool.result);
      if (found) return found;
    }
  }
  return null;
}

/**
 * The latest screenshot an agent took of its desktop, shown as it is taken (read from its workspace
 * through the server's file route); nothing for an agent without computer tools.
 */
export function LatestScreenshot({
  runId,
  agentId,
  stream,
}: {
  runId: string | undefined;
  agentId: string;
  stream: AgentStream | undefined;
}) {
  const file = latestScreenshot(stream);
  if (!runId || !file) return null;
  const url = api.rawUrl(runId, `workspace:${agentId}`, file);
  return (
    <figure className="latest-screenshot" aria-label={`Latest screenshot of ${agentId}'s desktop`}>
      <a href={url} target="_blank" rel="noreferrer">
        <img src={url} alt={`${agentId}'s desktop: ${file}`} style={{ maxWidth: '100%', height: 'auto' }} />
      </a>
      <figcaption className="muted">{file}</figcaption>
    </figure>
  );
}
