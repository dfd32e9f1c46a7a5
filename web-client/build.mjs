// Builds the ES module (for bundlers) and the minified <script> snippet,
// and fails if the snippet, web-vitals included, exceeds 5 KB gzip. The
// snippet goes where the rum module embeds it (go:embed reads only its
// own package's directory).
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { readFileSync, writeFileSync } from 'node:fs';

const BUDGET = 5 * 1024;
await build({ entryPoints: ['src/rum.ts'], bundle: true, format: 'esm', target: 'es2020', outfile: 'dist/lastmile-rum.mjs', external: [] });
const SNIPPET = '../modules/rum/lastmile-rum.min.js';
await build({ entryPoints: ['src/snippet.ts'], bundle: true, format: 'iife', target: 'es2020', minify: true, outfile: SNIPPET });
const snippet = readFileSync(SNIPPET);
const gz = gzipSync(snippet, { level: 9 }).length;
const report = { snippet_bytes: snippet.length, snippet_gzip_bytes: gz, budget_gzip_bytes: BUDGET };
writeFileSync('dist/size.json', JSON.stringify(report, null, 2) + '\n');
console.log(`snippet: ${snippet.length} B, ${gz} B gzip (budget ${BUDGET})`);
if (gz > BUDGET) {
  console.error(`the snippet is ${gz} B gzip, over the ${BUDGET} B budget`);
  process.exit(1);
}
