// Scores a result file of the cache test suite the way cache-tests.fyi
// shows it, with the suite's own test list and result rules (dependencies
// honoured): node score.mjs results.json. Prints JSON: passed/total per
// kind, and every test that did not pass with its symbol and detail.
import fs from 'fs'
import tests from 'http-cache-tests/tests/index.mjs'
import surrogate from 'http-cache-tests/tests/surrogate-control.mjs'
import { determineTestResult } from 'http-cache-tests/lib/display.mjs'

// cli.mjs runs the Surrogate-Control tests too; so are they scored.
tests.push(surrogate)
const results = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const score = { required: { passed: 0, total: 0 }, optimal: { passed: 0, total: 0 }, failures: [] }
for (const suite of tests) {
  for (const test of suite.tests) {
    if (test.browser_only === true) continue
    const kind = test.kind || 'required'
    if (!(kind in score)) continue
    const symbol = determineTestResult(tests, test.id, results)[2]
    score[kind].total++
    if (symbol === '✅') {
      score[kind].passed++
    } else {
      const detail = Array.isArray(results[test.id]) ? results[test.id][1] : ''
      score.failures.push({ id: test.id, kind, symbol, detail })
    }
  }
}
console.log(JSON.stringify(score, null, 2))
