import { useMemo, useState } from 'react';
import { renderMarkdown } from '../markdown.js';

/** The final answer, rendered as Markdown with highlighted code, and a copy button. */
export function FinalAnswer({ text, presenter }: { text: string; presenter: string | null }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const [copied, setCopied] = useState(false);
  return (
    <section aria-label="Final answer" className="final">
      <header>
        <h2>Final answer{presenter ? ` — ${presenter}` : ''}</h2>
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(text).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </header>
      <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />
    </section>
  );
}
