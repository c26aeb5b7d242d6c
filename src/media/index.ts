export {
  loadAttachments,
  questionWithAttachments,
  type Attachment,
  type AttachmentInput,
  type LoadedAttachments,
  type LoadAttachmentsOptions,
} from './attachments.js';
export { checkMediaForAgents, mediaInputOf, type AgentMediaInput } from './agent-media-checks.js';
export {
  downloadAttachment,
  isAttachmentUrl,
  nameFromUrl,
  type DownloadOptions,
} from './fetch-attachment.js';
export { DEFAULT_MEDIA_MAX_BYTES, MAX_TEXT_ATTACHMENT_BYTES, formatBytes } from './media-limits.js';
export { mediaLabel } from './media-label.js';
export { fileContent, readMediaFile, sha256Hex, type FileContent } from './read-media-file.js';
export { sniffMedia, type Sniffed } from './sniff-media.js';
