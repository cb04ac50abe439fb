'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { slugify, toc, rewrite } = require('../lib/toc');

test('slugs follow GitHub', () => {
  assert.strictEqual(slugify('Getting started'), 'getting-started');
  assert.strictEqual(slugify('What is `mdtoc`?'), 'what-is-mdtoc');
  assert.strictEqual(slugify('C++ & Rust'), 'c--rust');
  assert.strictEqual(slugify('Größe ändern'), 'größe-ändern');
  assert.strictEqual(slugify('snake_case-name'), 'snake_case-name');
});

test('levels 2 and 3, level 3 indented', () => {
  const md = '# Title\n## One\n### One.a\n#### deep\n## Two\n';
  assert.strictEqual(toc(md), '- [One](#one)\n  - [One.a](#onea)\n- [Two](#two)');
});

test('repeated headings get numbered slugs', () => {
  const md = '## Usage\n### Example\n## API\n### Example\n### Example\n';
  assert.strictEqual(
    toc(md),
    '- [Usage](#usage)\n  - [Example](#example)\n- [API](#api)\n  - [Example](#example-1)\n  - [Example](#example-2)',
  );
});

test('headings in fenced code are ignored', () => {
  const md = '## Install\n```sh\n## not a heading\n```\n~~~\n### nor this\n~~~\n## Run\n';
  assert.strictEqual(toc(md), '- [Install](#install)\n- [Run](#run)');
});

test('rewrite replaces only the TOC', () => {
  const md = 'intro\n<!-- toc -->\nold\n<!-- tocstop -->\n## A\n';
  assert.strictEqual(rewrite(md), 'intro\n<!-- toc -->\n- [A](#a)\n<!-- tocstop -->\n## A\n');
});
