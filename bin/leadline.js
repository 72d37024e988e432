#!/usr/bin/env node
// The compiled CLI, bundled (scripts/bundle-cli.js says why); `npm install`
// builds dist/ through the prepare script.
import { sizeYoungGeneration } from './young-generation.js';

sizeYoungGeneration();
const { main } = await import('../dist/cli-bundle/index.js');
await main(process.argv);
