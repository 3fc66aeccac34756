// The documentation holds: every relative link in README.md and docs/ (and the folder READMEs it links)
// resolves to a file, and its #anchor to a heading of that file (GitHub's anchors); every code block
// marked `<!-- snippet: path -->` equals that file (the file is what test/e2e/examples.test.ts runs);
// the README fits on a screen or three (at most 200 lines).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.join(__dirname, "..");

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? markdownFiles(p) : e.name.endsWith(".md") ? [p] : [];
  });
}

/** The text outside fenced code blocks and inline code. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of text.replace(/^```[\s\S]*?^```/gm, "").split("\n")) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/<[^>]+>/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Every relative link of a markdown file: [text](target) outside code, images included. */
function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

const documents = [path.join(ROOT, "README.md"), ...markdownFiles(path.join(ROOT, "docs"))];

test("README.md is at most 200 lines", () => {
  const lines = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").trimEnd().split("\n").length;
  assert.ok(lines <= 200, `README.md has ${lines} lines`);
});

test("every relative link and #anchor in README.md and docs/ resolves", () => {
  const broken: string[] = [];
  const checked = new Set<string>();
  const queue = [...documents];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (checked.has(file)) continue;
    checked.add(file);
    const text = fs.readFileSync(file, "utf8");
    for (const target of links(text)) {
      const [rel, anchor] = target.split("#") as [string, string | undefined];
      const dest = rel === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(rel));
      const where = `${path.relative(ROOT, file)}: ${target}`;
      if (!fs.existsSync(dest)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (
        dest.endsWith(".md") &&
        !checked.has(dest) &&
        dest.startsWith(ROOT + path.sep) &&
        !dest.includes(`${path.sep}node_modules${path.sep}`)
      )
        queue.push(dest);
      if (anchor !== undefined && dest.endsWith(".md") && !anchorsOf(fs.readFileSync(dest, "utf8")).has(anchor))
        broken.push(`${where} (no heading #${anchor})`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked.size > documents.length, "the linked folder READMEs were checked too");
});

test("every code block marked as a snippet equals its file", () => {
  let snippets = 0;
  for (const file of documents) {
    const text = fs.readFileSync(file, "utf8");
    for (const m of text.matchAll(/<!-- snippet: (\S+) -->\n```[a-z]*\n([\s\S]*?)\n```/g)) {
      snippets++;
      const src = path.join(ROOT, m[1]!);
      assert.ok(fs.existsSync(src), `${path.relative(ROOT, file)}: ${m[1]} does not exist`);
      assert.equal(
        m[2],
        fs.readFileSync(src, "utf8").trimEnd(),
        `${path.relative(ROOT, file)}: the block of ${m[1]} differs from the file: copy the file into the block`,
      );
    }
  }
  assert.ok(snippets >= 5, `${snippets} snippets`);
});

test("the anchors follow GitHub's rule", () => {
  assert.deepEqual(
    [...anchorsOf("# REST: HMAC, or key + secret\n## With the SDK: the examples\n## Use\n## Use\n## `npm start`")],
    ["rest-hmac-or-key--secret", "with-the-sdk-the-examples", "use", "use-1", "npm-start"],
  );
});
