import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import html from 'escape-html-template-tag';
import { urlHtml } from '../../src/web/html-url';

/**
 * Escaping by construction (issue 47, docs/security.md "HTML escaping"): every server-rendered page
 * under src/web/ builds its HTML with the `html` tagged template of escape-html-template-tag, which
 * escapes each value it is given unless that value is itself HTML built the same way. HTML written in
 * a plain template literal or string literal (whose values someone has to remember to escape) is
 * refused here, unless this allow-list names it and says why.
 */

const ROOT = path.resolve(__dirname, '../..');
const WEB = path.join(ROOT, 'src/web');

/** Something that looks like markup: a tag's start (`<p`, `</p`, `<!doctype`). */
const MARKUP = /<[a-z!/]/i;

/**
 * The deliberate exceptions: a file and the start of the literal. None is built from a value: each is
 * fixed markup that is not a page (an image file) or a fixed string searched for in markup.
 */
const ALLOWED: Array<{ file: string; excerpt: string; why: string }> = [
  // The favicons: fixed SVG files served as image/svg+xml assets, not pages, with no value in them.
  { file: 'src/web/portal/styles.ts', excerpt: '`<svg xmlns=', why: 'PORTAL_ICON, a fixed image file' },
  { file: 'src/web/checkout/pages.ts', excerpt: '`<svg xmlns=', why: 'CHECKOUT_ICON, a fixed image file' },
  // The guides are Markdown rendered by markdown-it with `html: false` (every raw tag in the Markdown
  // is escaped by markdown-it itself); this only adds tabindex to the <pre> elements of that output.
  { file: 'src/web/docs/guides.ts', excerpt: "'<pre>'", why: 'a fixed tag searched for in markdown-it output' },
  { file: 'src/web/docs/guides.ts', excerpt: `'<pre tabindex="0">'`, why: 'its fixed replacement' },
];

interface Finding {
  file: string;
  line: number;
  excerpt: string;
}

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

/** The literal text of a template (its fixed parts only, not the code of its substitutions). */
function templateText(node: ts.TemplateLiteral): string {
  if (ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('${…}');
}

const taggedHtml = (node: ts.Node): boolean =>
  ts.isTaggedTemplateExpression(node.parent) && ts.isIdentifier(node.parent.tag) && node.parent.tag.text === 'html';

/** Template and string literals holding markup that are not the template of an `html` tag. */
function plainHtmlLiterals(fileName: string, text: string): Finding[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Finding[] = [];
  const visit = (node: ts.Node) => {
    let literal: string | null = null;
    if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      if (!taggedHtml(node)) literal = templateText(node);
    } else if (ts.isStringLiteral(node) && !ts.isImportDeclaration(node.parent) && !ts.isExternalModuleReference(node.parent)) {
      literal = node.text;
    }
    if (literal !== null && MARKUP.test(literal)) {
      found.push({ file: path.relative(ROOT, fileName), line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, excerpt: node.getText(source).slice(0, 120) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('escaping by construction', () => {
  test('no page under src/web/ builds HTML from a plain template or string literal (only the html tag; the allow-list names the exceptions)', () => {
    const found = sources(WEB).flatMap((file) => plainHtmlLiterals(file, fs.readFileSync(file, 'utf8')));
    const allowed = (f: Finding) => ALLOWED.some((a) => a.file === f.file && f.excerpt.startsWith(a.excerpt));
    expect(found.filter((f) => !allowed(f))).toEqual([]);
    // Every exception is still there (a stale entry would allow the next one silently).
    for (const a of ALLOWED) expect({ ...a, present: found.some((f) => f.file === a.file && f.excerpt.startsWith(a.excerpt)) }).toEqual({ ...a, present: true });
  });

  test('the check finds HTML in a plain template, a string, or a template with another tag; not in an html template', () => {
    const code = [
      'const a = `<p>${name}</p>`;',
      "const b = '<br>';",
      'const c = other`<em>${x}</em>`;',
      'const d = html`<p>${name}</p>`;',
      'const e = html`<ul>${items.map((i) => `<li>${i}</li>`)}</ul>`;',
      'const f = `${a} < ${b}`;',
      "import x from './<not-markup>';",
    ].join('\n');
    expect(plainHtmlLiterals(path.join(WEB, 'example.ts'), code).map((f) => f.line)).toEqual([1, 2, 3, 5]);
  });

  test('the html tag escapes a hostile value in text and in attributes; urlHtml keeps a link readable and still escapes quotes', () => {
    const hostile = `<script>alert(1)</script>" onmouseover="alert(2)`;
    const out = html`<p title="${hostile}">${hostile}</p>`.toString();
    expect(out).not.toContain('<script>');
    expect(out).not.toMatch(/" onmouseover/);
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;&#x2F;script&gt;&quot; onmouseover&#x3D;&quot;alert(2)">&lt;script&gt;alert(1)&lt;&#x2F;script&gt;&quot; onmouseover&#x3D;&quot;alert(2)</p>',
    );
    expect(urlHtml('/payments?type=charges&cursor=a%2Fb').toString()).toBe('/payments?type=charges&amp;cursor=a%2Fb');
    expect(html`<a href="${urlHtml(`/x?q="><script>`)}">`.toString()).toBe('<a href="/x?q=&quot;&gt;&lt;script&gt;">');
  });
});
