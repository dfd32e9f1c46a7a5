// Debian's Chromium as the browser tests run it: no sandbox as root,
// nothing that calls out to the (closed) network, and localhost resolving
// to 127.0.0.1, since QUIC does not fall back from ::1. QUIC to the edge's
// private certificate needs the SPKI allowance (EDGE_SPKI) and forced QUIC
// for the origin, which callers add.
import { chromium } from 'playwright-core';

const baseArgs = [
  '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-default-apps',
  '--host-resolver-rules=MAP localhost 127.0.0.1',
];

export function launch(extraArgs) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [...baseArgs, ...extraArgs],
  });
}
