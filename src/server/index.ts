/**
 * `massgen/server`: `massgen serve` as a library — an OpenAI-compatible API over a team of agents, as a
 * web-standard `(Request) => Promise<Response>` handler to mount anywhere, or a ready Node server.
 *
 * @example
 * ```ts
 * import { startServeServer } from 'massgen/server';
 *
 * const server = await startServeServer({ cwd: process.cwd(), env: process.env, config: 'team.yaml', port: 4000 });
 * console.log(server.url); // http://127.0.0.1:4000/v1
 * console.log(server.apiKey); // generated: clients send it as `Authorization: Bearer …`
 * ```
 * @packageDocumentation
 */
export { createOpenAIApp, type OpenAIAppOptions } from './openai/openai-app.js';
export { servedModels, type ServedModel } from './openai/model-catalog.js';
export { startServeServer, type ServeServer, type ServeServerOptions } from './openai/serve-server.js';
