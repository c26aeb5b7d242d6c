import { useId, useState } from 'react';
import { kb } from './file-preview.js';

/**
 * The files attached to a question: picked with the button or dropped on the question box (see
 * {@link dropHandlers}), listed as chips with their size and a remove button. `error` is the last
 * refusal (the page's own check, or the server's: a type no model takes, a file too large).
 */
export function AttachFiles({
  files,
  onChange,
  error,
}: {
  files: readonly File[];
  onChange: (files: File[]) => void;
  error: string | null;
}) {
  const inputId = useId();
  const errorId = useId();
  return (
    <div className="attach">
      <input
        id={inputId}
        type="file"
        multiple
        className="visually-hidden"
        accept="image/*,audio/*,video/*,application/pdf"
        aria-describedby={error ? errorId : undefined}
        onChange={(e) => {
          onChange([...files, ...Array.from(e.target.files ?? [])]);
          // The same file may be picked again after it was removed.
          e.target.value = '';
        }}
      />
      <label htmlFor={inputId} className="attach-button">
        Attach files
      </label>
      <span className="muted"> images, audio, video or PDF — or drop them on the question</span>
      {files.length > 0 && (
        <ul className="chips" aria-label="Attached files">
          {files.map((file, i) => (
            <li key={`${file.name}:${i}`} className="chip">
              <span className="chip-name">{file.name}</span> <span className="muted">{kb(file.size)}</span>
              <button
                type="button"
                aria-label={`Remove ${file.name}`}
                onClick={() => onChange(files.filter((_, k) => k !== i))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p role="alert" className="error attach-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

/** Drag-and-drop on an element (the question box): dropped files are added; `dragging` lights it up. */
export function useDropFiles(add: (files: File[]) => void) {
  const [dragging, setDragging] = useState(false);
  const hasFiles = (e: React.DragEvent) => Array.from(e.dataTransfer.types).includes('Files');
  return {
    dragging,
    handlers: {
      onDragOver: (e: React.DragEvent) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(true);
      },
      onDragLeave: () => setDragging(false),
      onDrop: (e: React.DragEvent) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(false);
        add(Array.from(e.dataTransfer.files));
      },
    },
  };
}
