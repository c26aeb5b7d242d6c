import { useState } from 'react';
import { api } from '../api.js';
import { latestScreenshots } from '../browser-shots.js';
import type { AgentStream } from '../run-view.js';

/**
 * The latest browser screenshot of each agent that took one (`tools.browser`, docs/browser.md), read
 * from its workspace. A past run's workspaces may be gone: then only the path is shown.
 */
export function BrowserShots({
  runId,
  streams,
}: {
  runId: string;
  streams: Readonly<Record<string, AgentStream | undefined>>;
}) {
  const shots = latestScreenshots(streams);
  if (shots.length === 0) return null;
  return (
    <section aria-label="Browser screenshots" className="browser-shots">
      <h2>Browser</h2>
      <div className="browser-shots-row">
        {shots.map((shot) => (
          <Shot key={shot.agentId} runId={runId} {...shot} />
        ))}
      </div>
    </section>
  );
}

function Shot({
  runId,
  agentId,
  path,
  callId,
}: {
  runId: string;
  agentId: string;
  path: string;
  callId: string;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  // The call id in the address makes the browser fetch the file again for each new screenshot.
  const url = `${api.rawUrl(runId, `workspace:${agentId}`, path)}&v=${encodeURIComponent(callId)}`;
  return (
    <figure>
      {failed === url ? (
        <p className="muted">{path} (no longer in the workspace)</p>
      ) : (
        <a href={url} target="_blank" rel="noreferrer">
          <img
            src={url}
            alt={`${agentId}'s latest browser screenshot`}
            style={{ maxWidth: '320px' }}
            onError={() => setFailed(url)}
          />
        </a>
      )}
      <figcaption>
        {agentId} · {path}
      </figcaption>
    </figure>
  );
}
