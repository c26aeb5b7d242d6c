/** `ask_others` (docs/ask-others.md): agents ask their peers or the human a question mid-turn. */
export {
  AskOthersDesk,
  MAX_QUESTION_CHARS,
  type AskOthersOptions,
  type AnswerRefusal,
  type PeerAnswer,
  type PeerResponder,
} from './ask-others-desk.js';
export { peerResponder, type PeerModel } from './peer-responder.js';
