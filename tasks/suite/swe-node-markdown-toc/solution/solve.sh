#!/bin/bash
# Reference solution: skip fenced code, reduce links to their text, keep
# unicode letters in slugs, number repeated slugs; test; rewrite the TOCs.
set -euo pipefail
cd /src/mdtoc
node --version
node --test test/ || true
cat > lib/toc.js <<'JS'
'use strict';

const START = '<!-- toc -->';
const STOP = '<!-- tocstop -->';

function slugify(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function plain(text) {
  return text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
}

function headings(markdown) {
  const out = [];
  let fence = null;
  for (const line of markdown.split('\n')) {
    const f = /^(```|~~~)/.exec(line);
    if (f) {
      if (fence === null) fence = f[1];
      else if (fence === f[1]) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const m = /^(#{2,3})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) {
      out.push({ level: m[1].length, text: plain(m[2]) });
    }
  }
  return out;
}

function toc(markdown) {
  const seen = new Map();
  return headings(markdown)
    .map((h) => {
      let slug = slugify(h.text);
      const n = seen.get(slug) || 0;
      seen.set(slug, n + 1);
      if (n > 0) slug = `${slug}-${n}`;
      return `${h.level === 3 ? '  ' : ''}- [${h.text}](#${slug})`;
    })
    .join('\n');
}

function rewrite(markdown) {
  const a = markdown.indexOf(START);
  const b = markdown.indexOf(STOP);
  if (a < 0 || b < a) {
    throw new Error('no <!-- toc --> ... <!-- tocstop --> markers');
  }
  return `${markdown.slice(0, a + START.length)}\n${toc(markdown)}\n${markdown.slice(b)}`;
}

module.exports = { slugify, headings, toc, rewrite };
JS
node --test test/
mdtoc /srv/handbook/docs/operations.md /srv/handbook/docs/api.md
mdtoc --check /srv/handbook/docs/operations.md /srv/handbook/docs/api.md
