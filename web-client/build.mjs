// Builds the ES modules (for bundlers) and the minified <script> snippet,
// and fails if a browser build exceeds its gzip budget: the snippet,
// web-vitals included, 5 KB; subscribe(), a separate entry point only
// pages with live updates load, 3 KB. The snippet goes where the rum
// module embeds it (go:embed reads only its own package's directory).
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { readFileSync, writeFileSync } from 'node:fs';

await build({ entryPoints: ['src/rum.ts'], bundle: true, format: 'esm', target: 'es2020', outfile: 'dist/lastmile-rum.mjs', external: [] });
await build({ entryPoints: ['src/subscribe.ts'], bundle: true, format: 'esm', target: 'es2020', outfile: 'dist/lastmile-subscribe.mjs' });
await build({ entryPoints: ['src/snippet.ts'], bundle: true, format: 'iife', target: 'es2020', minify: true, outfile: '../modules/rum/lastmile-rum.min.js' });
await build({ entryPoints: ['src/subscribe.ts'], bundle: true, format: 'esm', target: 'es2020', minify: true, outfile: 'dist/lastmile-subscribe.min.mjs' });

const budgets = {
  snippet: { file: '../modules/rum/lastmile-rum.min.js', budget: 5 * 1024 },
  subscribe: { file: 'dist/lastmile-subscribe.min.mjs', budget: 3 * 1024 },
};
const report = {};
let over = false;
for (const [name, { file, budget }] of Object.entries(budgets)) {
  const bytes = readFileSync(file);
  const gz = gzipSync(bytes, { level: 9 }).length;
  report[name] = { bytes: bytes.length, gzip_bytes: gz, budget_gzip_bytes: budget };
  console.log(`${name}: ${bytes.length} B, ${gz} B gzip (budget ${budget})`);
  if (gz > budget) {
    console.error(`${name} is ${gz} B gzip, over the ${budget} B budget`);
    over = true;
  }
}
writeFileSync('dist/size.json', JSON.stringify(report, null, 2) + '\n');
if (over) process.exit(1);
