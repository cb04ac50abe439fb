'use strict';

const START = '<!-- toc -->';
const STOP = '<!-- tocstop -->';

function slugify(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ +/g, '-');
}

function headings(markdown) {
  const out = [];
  for (const line of markdown.split('\n')) {
    const m = /^(#{2,3})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) {
      out.push({ level: m[1].length, text: m[2] });
    }
  }
  return out;
}

function toc(markdown) {
  return headings(markdown)
    .map((h) => `${h.level === 3 ? '  ' : ''}- [${h.text}](#${slugify(h.text)})`)
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
