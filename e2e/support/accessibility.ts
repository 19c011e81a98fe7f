import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** The rules every page of the site keeps: WCAG 2.2 AA and axe's best practices. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/**
 * axe's violations on the page as it stands (or within `include`, a CSS selector), one line each:
 * the rule and the elements it failed on, so a failing test names what to mend.
 */
export async function axeViolations(page: Page, include?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page }).withTags(AXE_TAGS);
  const result = await (include ? builder.include(include) : builder).analyze();
  return result.violations.map((v) => `${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
