export {
  ScriptedBackend,
  step,
  gate,
  type ScriptStep,
  type ScriptedReply,
  type RecordedRequest,
} from './scripted-backend.js';
export { EventRecorder } from './event-recorder.js';
export { fixedClock, type FixedClock } from './fixed-clock.js';
export {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  type FakeResponseHandler,
  type FakeChatRequestBody,
  type FakeErrorResponse,
  type FakeHangResponse,
  type FakeResponse,
  type FakeTextResponse,
  type FakeToolCall,
  type FakeToolCallsResponse,
  type FakeUsage,
} from './fake-openai-server.js';
export { hashedEmbedding, FAKE_EMBEDDING_DIMENSIONS } from './fake-server/embeddings.js';
export {
  startFakeServer,
  type FakeServer,
  type FakeHandler,
  type FakeServerOptions,
  type RawRoute,
} from './fake-server/server.js';
export type { FakeRequestView, WireDialect } from './fake-server/dialect.js';
export type { FakeMedia } from './fake-server/media-parts.js';
export {
  tinyJpeg,
  tinyMp3,
  tinyMp4,
  tinyPdf,
  tinyPng,
  tinyWav,
  mediaPartOf,
  sampleMedia,
  type TinyPdfOptions,
} from './media-fixtures.js';
export { readPng, type DecodedPng } from './png.js';
export { encodePng, paintPng, type RgbImage } from '../util/png.js';
export { openAIChatDialect } from './fake-server/openai-chat.js';
export { CONTEXT_LENGTH_ERRORS } from './fake-server/context-length-errors.js';
export {
  geminiDialect,
  geminiErrorBody,
  withGemini,
  type FakeGeminiExtras,
  type FakeGeminiRequestBody,
  type GeminiPart,
} from './fake-server/gemini.js';
export {
  anthropicMessagesDialect,
  anthropicErrorBody,
  anthropicErrorType,
  type FakeMessagesRequestBody,
  type FakeAnthropicBlock,
} from './fake-server/anthropic-messages.js';
export {
  openAIResponsesDialect,
  fakeWebSearch,
  openAIResponsesErrorBody,
  type FakeResponsesRequestBody,
  type FakeResponsesInputItem,
} from './fake-server/openai-responses.js';
export {
  type FakeMediaEndpoint,
  type MediaAnswer,
  type MediaRouteSpec,
  type RecordedMediaRequest,
} from './fake-server/media-endpoint.js';
export { openAIMediaEndpoint, FAKE_TRANSCRIPT } from './fake-server/openai-media.js';
export { geminiMediaEndpoint } from './fake-server/gemini-media.js';
export { samplePng, sampleWav, sampleMp3, sampleMp4 } from './fake-server/media-samples.js';
export { convergingTeam, type ConvergingTeamOptions } from './converging-team.js';
