/**
 * axe-core in the page under test: its source is injected with `addScriptTag` (no network; the page's
 * Content-Security-Policy is bypassed for the test's context only, see `newPage({ bypassCSP })`), then
 * `axe.run` checks the whole document. Returns the serious and critical violations (and a heading that
 * skips a level), one line each with the elements concerned, so a failing test says what to fix.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Moderate rules checked too: a heading that skips a level breaks navigation by headings. */
const ALSO = new Set(['heading-order']);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe === "object"')))
    await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate<AxeViolation[]>(
    'window.axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)',
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || ALSO.has(v.id))
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map(
            (n) =>
              `${n.target.join(' ')}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, ' ')}]` : ''}`,
          )
          .join('; ')}`,
    );
}
