/**
 * The result of a queued run that was cancelled before any worker started it: a job removed from the
 * queue, or one whose batch was stopped. Both ends report the same shape so a batch's result line
 * looks alike whichever side noticed first; `runId` and `message` say which side that was.
 */
export { notRunResult } from '../types/run-result.js';
