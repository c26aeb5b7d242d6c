import { mediaEndpoint, type FakeMediaEndpoint } from './media-endpoint.js';
import { sampleMp4, samplePng } from './media-samples.js';

/**
 * Google's Imagen and Veo endpoints as `@ai-sdk/google` calls them, under any base path (`/v1beta`):
 *
 * - `POST …/models/<model>:predict` → `{ predictions: [{ bytesBase64Encoded, mimeType }] }`, one PNG
 *   per `parameters.sampleCount`;
 * - `POST …/models/<model>:predictLongRunning` → a pending operation `operations/video-<n>`;
 * - `GET …/operations/video-<n>` → the done operation, its sample's `uri` on this server;
 * - `GET …/files/video-<n>:download` → a small MP4.
 */
export function geminiMediaEndpoint(): FakeMediaEndpoint {
  let operations = 0;
  return mediaEndpoint(
    [
      {
        matches: (method, path) => method === 'POST' && /\/models\/[^/]+:predict$/.test(path),
        answer: (request) => {
          const parameters = request.json?.parameters as { sampleCount?: number } | undefined;
          const count = parameters?.sampleCount ?? 1;
          return {
            json: {
              predictions: Array.from({ length: count }, () => ({
                bytesBase64Encoded: samplePng().toString('base64'),
                mimeType: 'image/png',
              })),
            },
          };
        },
      },
      {
        matches: (method, path) => method === 'POST' && /\/models\/[^/]+:predictLongRunning$/.test(path),
        answer: () => {
          operations += 1;
          return { json: { name: `operations/video-${operations}`, done: false } };
        },
      },
      {
        matches: (method, path) => method === 'GET' && /\/operations\/video-\d+$/.test(path),
        answer: (request) => {
          const name = request.path.slice(request.path.indexOf('operations/'));
          const id = name.slice('operations/'.length);
          const base = request.path.slice(0, request.path.indexOf('/operations/'));
          // The SDK adds the key to a download on its own origin: the URI must name this server.
          return {
            json: {
              name,
              done: true,
              response: {
                generateVideoResponse: {
                  generatedSamples: [
                    {
                      video: { uri: `http://${request.headers.host}${base}/files/${id}:download?alt=media` },
                    },
                  ],
                },
              },
            },
          };
        },
      },
      {
        matches: (method, path) => method === 'GET' && /\/files\/video-\d+:download$/.test(path),
        answer: () => ({ body: sampleMp4(), contentType: 'video/mp4' }),
      },
    ],
    (status, message) => ({ error: { code: status, message, status: 'INVALID_ARGUMENT' } }),
  );
}
