// Usage: node write.mjs IN.json OUTDIR
// IN.json holds the columns of a capsim MPI trace (rank, kind, region, comm,
// peer, tag, bytes, duration, request, list); this writes them as
// nodejs-polars does: Int64 integers, its own string and list types, kind
// as a Categorical, and no capsim metadata (polars writes none), as an IPC
// file (plain, LZ4, ZSTD) and an IPC stream.
import fs from "node:fs";
import path from "node:path";
import pl from "nodejs-polars";

const [, , inPath, outDir] = process.argv;
const c = JSON.parse(fs.readFileSync(inPath, "utf8"));
const ints = ["rank", "comm", "peer", "tag", "bytes", "duration", "request"];
let df = pl.DataFrame([
  ...ints.map((n) => pl.Series(n, c[n], pl.Int64)),
  pl.Series("kind", c.kind, pl.Utf8).cast(pl.Categorical),
  pl.Series("region", c.region, pl.Utf8),
  pl.Series("list", c.list, pl.List(pl.Int64)),
]);
fs.mkdirSync(outDir, { recursive: true });
df.writeIPC(path.join(outDir, "polars.arrow"));
df.writeIPC(path.join(outDir, "polars-lz4.arrow"), { compression: "lz4" });
df.writeIPC(path.join(outDir, "polars-zstd.arrow"), { compression: "zstd" });
df.writeIPCStream(path.join(outDir, "polars.arrows"));
console.log(JSON.stringify({ rows: df.height }));
