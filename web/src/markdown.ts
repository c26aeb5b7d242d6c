import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import typescript from 'highlight.js/lib/languages/typescript';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked } from 'marked';

hljs.registerLanguage('bash', bash);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('json', json);
hljs.registerLanguage('python', python);
hljs.registerLanguage('typescript', typescript);
hljs.registerLanguage('yaml', yaml);

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Markdown to HTML for answers written by models: raw HTML in the text is shown as text, never
 * rendered (a model's answer must not run script in the page); code blocks are highlighted.
 */
const marked = new Marked({
  renderer: {
    html: ({ text }) => escape(text),
    code: ({ text, lang }) => {
      const language = lang && hljs.getLanguage(lang) ? lang : null;
      const body = language ? hljs.highlight(text, { language }).value : escape(text);
      return `<pre><code class="hljs${language ? ` language-${language}` : ''}">${body}</code></pre>`;
    },
    link: ({ href, text }) => {
      const safe = /^(https?:|mailto:|#)/i.test(href) ? href : '#';
      return `<a href="${escape(safe)}" rel="noreferrer noopener" target="_blank">${escape(text)}</a>`;
    },
    image: ({ text }) => escape(text),
  },
});

export function renderMarkdown(text: string): string {
  return marked.parse(text, { async: false });
}
