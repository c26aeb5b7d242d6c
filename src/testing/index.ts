export {
  ScriptedBackend,
  step,
  gate,
  type ScriptStep,
  type ScriptedReply,
  type RecordedRequest,
} from './scripted-backend.js';
export { EventRecorder } from './event-recorder.js';
export * from './fake-openai-server.js';
