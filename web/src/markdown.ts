import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked } from 'marked';

for (const [name, language] of Object.entries({
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  ini,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
}))
  hljs.registerLanguage(name, language);

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Source code as highlighted HTML (escaped plain text for a language highlight.js does not know). */
export function highlightCode(text: string, lang: string | null): { html: string; language: string | null } {
  const language = lang && hljs.getLanguage(lang) ? lang : null;
  return { html: language ? hljs.highlight(text, { language }).value : escape(text), language };
}

const EXTENSIONS: Record<string, string> = {
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  css: 'css',
  diff: 'diff',
  patch: 'diff',
  go: 'go',
  ini: 'ini',
  toml: 'ini',
  cfg: 'ini',
  java: 'java',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  json: 'json',
  jsonl: 'json',
  py: 'python',
  rs: 'rust',
  sql: 'sql',
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  xml: 'xml',
  yaml: 'yaml',
  yml: 'yaml',
};

/** The highlight.js language for a file name, or null. */
export const languageForPath = (path: string): string | null =>
  EXTENSIONS[path.split('.').at(-1)?.toLowerCase() ?? ''] ?? null;

/**
 * Markdown to HTML for text written by models: raw HTML in the text is shown as text, never rendered;
 * links keep only http(s), mailto and in-page targets; images show their alt text (the page loads
 * nothing from elsewhere); code blocks are highlighted.
 */
const marked = new Marked({
  renderer: {
    html: ({ text }) => escape(text),
    code: ({ text, lang }) => {
      const { html, language } = highlightCode(text, lang ?? null);
      return `<pre><code class="hljs${language ? ` language-${language}` : ''}">${html}</code></pre>`;
    },
    link: ({ href, text }) => {
      const safe = SAFE_URL.test(href) ? href : '#';
      return `<a href="${escape(safe)}" rel="noreferrer noopener" target="_blank">${escape(text)}</a>`;
    },
    image: ({ text }) => escape(text),
  },
});

const SAFE_URL = /^(https?:|mailto:|#)/i;

/** Markdown to HTML, before sanitizing (exported for tests in Node, where there is no DOM). */
export function markdownToHtml(text: string): string {
  return marked.parse(text, { async: false });
}

/**
 * Markdown to HTML that is safe to put in the page: {@link markdownToHtml}, then DOMPurify over the
 * result as a second, independent layer — no script, no `style`, no event-handler attributes, no
 * URL other than http(s), mailto or `#`, no forms or frames. Where no DOM exists (Node), every
 * character is escaped instead: it fails closed.
 */
export function renderMarkdown(text: string): string {
  const html = markdownToHtml(text);
  if (!DOMPurify.isSupported) return escape(html);
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
    ADD_ATTR: ['target'],
  });
}
