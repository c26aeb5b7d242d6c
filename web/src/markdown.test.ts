import { describe, expect, it } from 'vitest';
import { fileKind, shownRaw } from './file-kinds.js';
import { highlightCode, languageForPath, markdownToHtml, renderMarkdown } from './markdown.js';

/**
 * Markdown from models is rendered with raw HTML escaped and only safe links; DOMPurify sanitizes the
 * result in the page (the browser test checks that). In Node there is no DOM: rendering fails closed.
 */
describe('markdown', () => {
  it('shows raw HTML as text, keeps only http(s)/mailto/# links and never loads an image', () => {
    const html = markdownToHtml(
      '<img src=x onerror=alert(1)> <script>alert(2)</script>\n\n[bad](javascript:alert(3)) [ok](https://example.com)\n\n![pic](http://evil/x.png)',
    );
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<a href="#"');
    expect(html).toContain('href="https://example.com"');
  });

  it('highlights code blocks in a known language and escapes the others', () => {
    expect(markdownToHtml('```python\ndef f(): pass\n```')).toContain(
      '<span class="hljs-keyword">def</span>',
    );
    expect(markdownToHtml('```nope\n<b>\n```')).toContain('&lt;b&gt;');
    expect(highlightCode('<x>', null).html).toBe('&lt;x&gt;');
  });

  it('fails closed without a DOM: everything escaped', () => {
    expect(renderMarkdown('**b** <i>x</i>')).not.toMatch(/<strong>|<i>/);
  });

  it('knows how to show each kind of file', () => {
    expect(languageForPath('src/app.py')).toBe('python');
    expect(languageForPath('README')).toBeNull();
    expect(
      ['a.png', 'b.svg', 'c.pdf', 'd.html', 'e.md', 'f.csv', 'g.ts', 'h.txt', 'Makefile'].map(fileKind),
    ).toEqual(['image', 'svg', 'pdf', 'html', 'markdown', 'csv', 'code', 'text', 'text']);
    expect(['image', 'svg', 'pdf', 'html', 'markdown'].map((k) => shownRaw(k as never))).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
  });
});
