import { useMemo } from 'react';
import { renderMarkdown } from '../markdown.js';

/** Markdown written by a model or an agent's file, rendered and sanitized (see `renderMarkdown`). */
export function MarkdownBlock({ text, label }: { text: string; label?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return (
    <div
      className="markdown"
      {...(label ? { role: 'region', 'aria-label': label } : {})}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
