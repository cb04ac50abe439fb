#!/usr/bin/env node
'use strict';
// Nightly POS rollup: one JSON file per business day with every store's totals.
// usage: rollup.js [SPOOL] [OUTDIR]   (defaults: /srv/pos/spool, out/ next to this script)
const fs = require('fs/promises');
const path = require('path');

const SPOOL = process.argv[2] || '/srv/pos/spool';
const OUT = process.argv[3] || path.join(__dirname, 'out');
const CONCURRENCY = 64;

async function listTransactions(spool) {
  const files = [];
  for (const store of (await fs.readdir(spool)).sort()) {
    for (const day of (await fs.readdir(path.join(spool, store))).sort()) {
      for (const name of (await fs.readdir(path.join(spool, store, day))).sort()) {
        files.push({ store, day, file: path.join(spool, store, day, name) });
      }
    }
  }
  return files;
}

async function readAll(files) {
  const out = new Array(files.length);
  let next = 0;
  async function worker() {
    while (next < files.length) {
      const i = next++;
      out[i] = { ...files[i], txn: JSON.parse(await fs.readFile(files[i].file, 'utf8')) };
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return out;
}

function amountCents(txn) {
  let cents = 0;
  for (const line of txn.lines) {
    cents += line.qty * Math.round(parseFloat(line.unit_price) * 100);
  }
  return cents;
}

async function main() {
  const txns = await readAll(await listTransactions(SPOOL));
  const days = new Map();
  for (const { store, day, txn } of txns) {
    if (txn.voided) continue;
    if (!days.has(day)) days.set(day, {});
    const stores = days.get(day);
    const s = stores[store] || (stores[store] = { transactions: 0, refunds: 0, net_cents: 0 });
    s.transactions += 1;
    if (txn.type === 'refund') s.refunds += 1;
    s.net_cents += amountCents(txn);
  }
  await fs.mkdir(OUT, { recursive: true });
  for (const [day, stores] of [...days].sort()) {
    const sorted = Object.fromEntries(Object.entries(stores).sort());
    const net = Object.values(sorted).reduce((a, s) => a + s.net_cents, 0);
    const body = JSON.stringify({ day, stores: sorted, net_cents: net }, null, 2) + '\n';
    await fs.writeFile(path.join(OUT, `${day}.json`), body);
  }
  console.log(`rollup: ${txns.length} transactions, ${days.size} days -> ${OUT}`);
}

main().catch((err) => {
  console.error(`rollup: ${err.stack || err}`);
  process.exit(1);
});
