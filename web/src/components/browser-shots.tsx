import { useState } from 'react';
import { api } from '../api.js';
import { latestScreenshots } from '../browser-shots.js';
import { mediaUrl } from '../media.js';
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
  sha256,
}: {
  runId: string;
  agentId: string;
  path: string;
  callId: string;
  sha256?: string;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  // The recorded image by its hash; else the workspace file, the call id in the address making the
  // browser fetch it again for each new screenshot.
  const url = sha256
    ? mediaUrl(runId, sha256)
    : `${api.rawUrl(runId, `workspace:${agentId}`, path)}&v=${encodeURIComponent(callId)}`;
  return (
    <figure>
      {failed === url ? (
        <p className="muted">{path}: file no longer available</p>
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
