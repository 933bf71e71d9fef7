// Interoperability check between capsim and arrow-js (the apache-arrow npm
// package). Usage:
//   node interop.mjs read FILE    prints a JSON summary of a capsim execution graph
//   node interop.mjs write FILE   writes a 4-rank ring as a capsim execution graph
import { readFileSync, writeFileSync } from "node:fs";
import {
  tableFromIPC, tableToIPC, makeTable, vectorFromArray, Field, Int32, Int64, List, Utf8, Schema, Table,
} from "apache-arrow";

const [mode, file] = process.argv.slice(2);

if (mode === "read") {
  const t = tableFromIPC(readFileSync(file));
  const md = t.schema.metadata;
  let sumSize = 0n, sends = 0, deps = 0;
  const size = t.getChild("size"), kind = t.getChild("kind"), req = t.getChild("requires");
  for (let i = 0; i < t.numRows; i++) {
    sumSize += BigInt(size.get(i));
    if (kind.get(i) === "send") sends++;
    deps += req.get(i).length;
  }
  console.log(JSON.stringify({
    format: md.get("capsim.format"), version: md.get("capsim.version"), ranks: Number(md.get("capsim.num_ranks")),
    rows: t.numRows, sum_size: sumSize.toString(), sends, requires: deps,
  }));
} else if (mode === "write") {
  // Rank r: l0 recv 64b from r-1, l1 calc 1000 requiring l0, l2 send 64b to r+1;
  // rank 0 sends first (its send has no dependency) and receives last.
  const n = 4;
  const rows = { rank: [], kind: [], size: [], peer: [], tag: [], cpu: [], nic: [], region: [], requires: [], irequires: [] };
  const add = (r, k, s, p, deps) => {
    rows.rank.push(r); rows.kind.push(k); rows.size.push(BigInt(s)); rows.peer.push(p); rows.tag.push(k === "calc" ? 0 : 7);
    rows.cpu.push(0); rows.nic.push(0); rows.region.push(k === "calc" ? "js.work" : null);
    rows.requires.push(deps); rows.irequires.push([]);
  };
  for (let r = 0; r < n; r++) {
    const left = (r + n - 1) % n, right = (r + 1) % n;
    if (r === 0) {
      add(r, "send", 64, right, []);
      add(r, "recv", 64, left, []);
      add(r, "calc", 1000, -1, [1]);
    } else {
      add(r, "recv", 64, left, []);
      add(r, "calc", 1000, -1, [0]);
      add(r, "send", 64, right, [1]);
    }
  }
  const list = () => new List(new Field("item", new Int32(), true));
  const cols = {
    rank: vectorFromArray(rows.rank, new Int32()),
    kind: vectorFromArray(rows.kind, new Utf8()),
    size: vectorFromArray(rows.size, new Int64()),
    peer: vectorFromArray(rows.peer, new Int32()),
    tag: vectorFromArray(rows.tag, new Int32()),
    cpu: vectorFromArray(rows.cpu, new Int32()),
    nic: vectorFromArray(rows.nic, new Int32()),
    region: vectorFromArray(rows.region, new Utf8()),
    requires: vectorFromArray(rows.requires, list()),
    irequires: vectorFromArray(rows.irequires, list()),
  };
  const t = new Table(cols);
  const md = new Map([["capsim.format", "execution-graph"], ["capsim.version", "1"], ["capsim.num_ranks", String(n)]]);
  const withMeta = new Table(new Schema(t.schema.fields, md), t.batches);
  writeFileSync(file, tableToIPC(withMeta, "file"));
} else {
  console.error("usage: node interop.mjs read|write FILE");
  process.exit(2);
}
