/** The terminal UI: the live multi-agent view (Ink), a pure view over the run's event stream. */
export { startLiveView, type LiveViewHandle, type LiveViewOptions } from './live-view.js';
export { isLiveViewSupported } from './live-view-entry.js';
export {
  reduceView,
  reduceViewAll,
  initialViewState,
  reduceUi,
  initialUiState,
  agentBadge,
  agentRows,
  currentApproval,
  answerApproval,
  approvalKey,
  type ViewState,
  type AgentView,
  type TranscriptEntry,
  type TimelineEntry,
  type TimelineKind,
  type ToolActivity,
  type PendingApproval,
  type ApprovalState,
  type PresentationView,
  type FinalAnswerView,
  type Badge,
  type BadgeKind,
  type UiState,
  type UiMode,
  type UiKey,
  type UiContext,
} from './view-state.js';
export { LiveViewStore, type LiveViewSnapshot, type LiveViewStoreOptions } from './store.js';
export { LiveView, type LiveViewProps } from './components/live-view.js';
export { LiveViewApp, type LiveViewAppProps } from './components/live-view-app.js';
export { FinalScreen, renderFinalScreen } from './components/final-screen.js';
