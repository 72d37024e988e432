#!/usr/bin/env node
// The compiled CLI; `npm install` builds dist/ through the prepare script.
import { main } from '../dist/cli/index.js';

await main(process.argv);
