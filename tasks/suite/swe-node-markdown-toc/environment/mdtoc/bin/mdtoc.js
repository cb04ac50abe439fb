#!/usr/bin/env node
'use strict';

const fs = require('fs');
const { rewrite } = require('../lib/toc');

const args = process.argv.slice(2);
const check = args[0] === '--check';
const files = check ? args.slice(1) : args;
if (files.length === 0) {
  console.error('usage: mdtoc [--check] FILE...');
  process.exit(2);
}
let stale = 0;
for (const file of files) {
  const src = fs.readFileSync(file, 'utf8');
  const out = rewrite(src);
  if (out === src) continue;
  if (check) {
    console.error(`${file}: table of contents is out of date`);
    stale++;
  } else {
    fs.writeFileSync(file, out);
    console.log(`${file}: table of contents updated`);
  }
}
process.exit(stale ? 1 : 0);
